import Foundation
import ListModel
import SectionalService
import TestSupport
import XCTest

/// The `webhooks` config key: every mistake reported with its path, and a server that refuses
/// to start without a webhook's secret.
final class WebhookConfigTests: FolderTestCase {
    private static let lists = #""lists": { "all": { "sections": [ { "key": "a", "type": "a", "title": "A", "rows": [] } ] } }"#

    private func issues(_ webhooks: String) throws -> [String] {
        let json = try JSONParser.parse("{ \(Self.lists), \"webhooks\": \(webhooks) }")
        do {
            _ = try Configuration.parse(json, folder: folder.path)
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    func testAValidWebhookIsReadWithItsDefaults() throws {
        let json = try JSONParser.parse("""
            { \(Self.lists), "webhooks": [ { "url": "http://hooks.internal:8081/sectional?x=1", "lists": ["all"], "secretEnv": "HOOK_SECRET" } ] }
            """)
        let configuration = try Configuration.parse(json, folder: folder.path)
        let webhook = try XCTUnwrap(configuration.webhooks.first)
        XCTAssertEqual(webhook.target, try WebhookURL.parse("http://hooks.internal:8081/sectional?x=1").get())
        XCTAssertEqual(webhook.target.host, "hooks.internal")
        XCTAssertEqual(webhook.target.port, 8081)
        XCTAssertEqual(webhook.target.target, "/sectional?x=1")
        XCTAssertEqual([webhook.timeoutSeconds, webhook.firstRetryMilliseconds, webhook.maxRetrySeconds], [10, 1_000, 300])
        XCTAssertEqual(try WebhookURL.parse("http://[::1]/").get().host, "::1")
        XCTAssertEqual(try WebhookURL.parse("http://h").get().target, "/")
    }

    func testEveryWebhookMistakeIsReportedWithItsPath() throws {
        XCTAssertEqual(try issues(#"{"url": "http://h"}"#), [#"webhooks: must be an array of webhooks ({"url", "lists", "secretEnv"})"#])
        let found = try issues("""
            [ { "url": "https://h/x", "lists": ["all"], "secretEnv": "S" },
              { "url": "ftp://h/x", "lists": ["nope"], "secretEnv": "", "retries": 3 },
              { "lists": [], "timeoutSeconds": 0 },
              { "url": "http://h/dup", "lists": ["all"], "secretEnv": "S" },
              { "url": "http://h/dup", "lists": ["all"], "secretEnv": "S" },
              "not an object",
              { "url": "HTTP://H:80/dup", "lists": ["all"], "secretEnv": "S" },
              { "url": "http://h/Dup", "lists": ["all"], "secretEnv": "S" } ]
            """)
        let expected = [
            "webhooks[0].url: https is not supported (no TLS library is linked): point the webhook at a TLS-terminating proxy, or use http on a private network",
            "webhooks[1].url: must be an http:// URL",
            "webhooks[1].lists: names 'nope', which is not a list of this config",
            "webhooks[1].secretEnv: must name an environment variable",
            "webhooks[1].retries: unknown key",
            "webhooks[2].timeoutSeconds: must be an integer from 1 to 300",
            "webhooks[2].url: is required (the receiver's http:// URL)",
            "webhooks[2].lists: must name at least one list",
            "webhooks[2].secretEnv: is required (the environment variable holding the signing secret)",
            "webhooks[4].url: is already used by another webhook (each URL once; list every list in its lists)",
            "webhooks[5]: must be an object",
            // One receiver however its URL is spelled (scheme and host in any case, the default
            // port named); a path is a path, case and all.
            "webhooks[6].url: is already used by another webhook (each URL once; list every list in its lists)",
        ]
        XCTAssertEqual(found.sorted(), expected.sorted(), found.joined(separator: "\n"))
    }

    func testTheServerRefusesToStartWithoutAWebhooksSecret() throws {
        let config = "{ \(Self.lists), \"webhooks\": [ { \"url\": \"http://127.0.0.1:9/\", \"lists\": [\"all\"], \"secretEnv\": \"HOOK_SECRET\" } ] }"
        XCTAssertThrowsError(try TestApp(config: config, webhookSecrets: ["HOOK_SECRET": ""])) { error in
            XCTAssertEqual((error as? ConfigError)?.description, """
                webhooks[0].secretEnv: the environment variable HOOK_SECRET is not set or empty; set it to the secret http://127.0.0.1:9/ verifies deliveries with
                """)
        }
        // The executable says so and exits 1; `check` reports the file's mistakes.
        let file = folder.appendingPathComponent("hooks.json")
        try config.write(to: file, atomically: true, encoding: .utf8)
        let serve = try ChildProcess.run(ServerProcess.executable, ["serve", "--config", file.path, "--port", "0", "--memory"])
        XCTAssertEqual(serve.status, 1)
        XCTAssertTrue(serve.errors.contains("webhooks[0].secretEnv: the environment variable HOOK_SECRET is not set"), serve.errors)
        let bad = folder.appendingPathComponent("bad.json")
        try config.replacingOccurrences(of: "http://", with: "https://").write(to: bad, atomically: true, encoding: .utf8)
        let check = try ChildProcess.run(ServerProcess.executable, ["check", "--config", bad.path])
        XCTAssertEqual(check.status, 1)
        XCTAssertTrue(check.errors.contains("webhooks[0].url: https is not supported"), check.errors)
    }
}
