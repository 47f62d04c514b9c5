import Foundation
import TestSupport
import XCTest

/// A change of a followed list's definition moves its version (every partition's, for a per-user
/// list) as a write does, and its webhooks hear of it — once per list, naming no user — at run
/// time (`PUT`/`DELETE …/definition`), by a config reload, and at a start with a changed definition.
final class WebhookDefinitionTests: FolderTestCase {
    static let token = "webhook-definition-token"
    private let service = [("Authorization", "Bearer \(WebhookDefinitionTests.token)")]

    /// The bodies delivered at `version`.
    private func bodies(_ receiver: WebhookReceiver, at version: Int) -> Set<String> {
        Set(receiver.deliveries.filter { $0.version == version }.map { String(decoding: $0.body, as: UTF8.self) })
    }

    private func putDefinition(_ app: TestApp, _ list: String, _ json: String) throws -> Int {
        let answer = try app.request("PUT", "/v1/lists/\(list)/definition", json: json, headers: service).expect(200)
        return try XCTUnwrap(answer.header("Sectional-Version").flatMap { Int($0) })
    }

    /// Orders of ann and bob, and the deliveries they make, received.
    private func writeOrders(_ app: TestApp, _ receiver: WebhookReceiver) throws {
        let batch = try app.request("POST", "/v1/collections/orders/batch", json: """
            {"upsert":[{"id":"a1","title":"a","status":"open","owner":"ann"},{"id":"b1","title":"b","status":"open","owner":"bob"}]}
            """, headers: service).expect(200)
        let version = try XCTUnwrap(batch.header("Sectional-Version").flatMap { Int($0) })
        XCTAssertTrue(eventually(within: 10) { self.bodies(receiver, at: version).count == 3 }, "\(receiver.deliveries.map(\.json))")
    }

    func testARunTimeDefinitionChangeDeliversTheListOnce() throws {
        let receiver = try WebhookReceiver(secret: WebhookTests.secret)
        defer { receiver.stop() }
        let app = try TestApp(config: WebhookTests.config(receiver.url), token: Self.token, webhookSecrets: WebhookTests.secrets)
        try writeOrders(app, receiver)

        let all = try putDefinition(app, "all", """
            { "sections": [ { "key": "all", "source": "orders", "type": "all", "title": "Everything", "row": { "type": "order", "title": "{title}" } } ] }
            """)
        XCTAssertTrue(eventually(within: 10) { self.bodies(receiver, at: all) == [#"{"list":"all","version":\#(all)}"#] },
                      "\(receiver.deliveries.map(\.json))")

        let orders = try putDefinition(app, "orders", """
            { "scope": { "field": "owner" }, "sections": [
              { "source": "orders", "key": "mine", "title": "Mine", "row": { "type": "order", "title": "#{title}" } } ] }
            """)
        XCTAssertTrue(eventually(within: 10) { self.bodies(receiver, at: orders) == [#"{"list":"orders","version":\#(orders)}"#] },
                      "every user's partition moved: one delivery, naming no user: \(receiver.deliveries.map(\.json))")

        // Removing the run-time definition serves the config's again: a new version, delivered.
        let removed = try app.request("DELETE", "/v1/lists/all/definition", headers: service).expect(204)
        let back = try XCTUnwrap(removed.header("Sectional-Version").flatMap { Int($0) })
        XCTAssertTrue(eventually(within: 10) { self.bodies(receiver, at: back) == [#"{"list":"all","version":\#(back)}"#] })
        // A list no webhook follows delivers nothing.
        let before = receiver.deliveries.count
        let other = try putDefinition(app, "other", """
            { "sections": [ { "key": "o", "source": "others", "type": "o", "title": "Others", "row": { "type": "o", "title": "{title}" } } ] }
            """)
        let next = try app.request("PUT", "/v1/collections/orders/records/a1", json: #"{"title":"a2","status":"open","owner":"ann"}"#,
                                   headers: service).expect(200)
        let written = try XCTUnwrap(next.header("Sectional-Version").flatMap { Int($0) })
        XCTAssertGreaterThan(written, other)
        XCTAssertTrue(eventually(within: 10) { self.bodies(receiver, at: written).count == 2 })
        XCTAssertEqual(receiver.deliveries.count, before + 2, "\(receiver.deliveries.dropFirst(before).map(\.json))")
        XCTAssertTrue(receiver.deliveries.allSatisfy(\.signatureValid))
    }

    func testAReloadAndAStartWithAChangedDefinitionDeliver() throws {
        let receiver = try WebhookReceiver(secret: WebhookTests.secret)
        defer { receiver.stop() }
        let file = folder.appendingPathComponent("config.json")
        let config = WebhookTests.config(receiver.url)
        var app: TestApp? = try TestApp(config: config, folder: folder, sqlite: true, token: Self.token, webhookSecrets: WebhookTests.secrets)
        try writeOrders(try XCTUnwrap(app), receiver)

        // A reload that changes both lists: one number for both, each list told once.
        let edited = config.replacingOccurrences(of: #""title": "All""#, with: #""title": "Every order""#)
            .replacingOccurrences(of: #""title": "{$key}""#, with: #""title": "Status {$key}""#)
        XCTAssertNotEqual(edited, config)
        try Data(edited.utf8).write(to: file)
        XCTAssertTrue(try XCTUnwrap(app).reload(file))
        let reloaded = try XCTUnwrap(app).version(of: "all")
        XCTAssertTrue(eventually(within: 10) {
            self.bodies(receiver, at: reloaded) == [#"{"list":"all","version":\#(reloaded)}"#, #"{"list":"orders","version":\#(reloaded)}"#]
        }, "\(receiver.deliveries.map(\.json))")

        // Stopped, the file changed again (only `all`), started: the change the start finds moves `all`.
        app = nil
        let restartedConfig = edited.replacingOccurrences(of: #""title": "Every order""#, with: #""title": "Orders""#)
        let restarted = try TestApp(config: restartedConfig, folder: folder, sqlite: true, token: Self.token, webhookSecrets: WebhookTests.secrets)
        let moved = try restarted.version(of: "all")
        XCTAssertGreaterThan(moved, reloaded)
        XCTAssertTrue(eventually(within: 10) { self.bodies(receiver, at: moved) == [#"{"list":"all","version":\#(moved)}"#] },
                      "\(receiver.deliveries.map(\.json))")
        XCTAssertTrue(eventually(within: 10) { (try? restarted.metric("sectional_webhook_outbox_pending")) == 0 })
        XCTAssertTrue(receiver.deliveries.allSatisfy(\.signatureValid))
    }
}
