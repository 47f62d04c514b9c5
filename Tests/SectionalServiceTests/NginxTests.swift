import Foundation
import TestSupport
import XCTest

/// The deployment's nginx (`deploy/nginx.conf`, run by Debian's nginx) in front of two real
/// `sectional` processes on one PostgreSQL database, both with `deploy/sectional.json`: round
/// robin sends each read to the other instance than the write before it, and `minVersion` makes
/// every read see the write.
final class NginxTests: XCTestCase {
    private static let serviceToken = "nginx-test-service-token"
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private var database: PostgresTestDatabase?
    private var instances: [ServerProcess] = []
    private var nginx: NginxProcess?

    override func setUpWithError() throws {
        try super.setUpWithError()
        let database = try PostgresTestDatabase(cluster: try PostgresTestDatabase.clusterURL())
        self.database = database
        let deploy = Self.repository.appendingPathComponent("deploy")
        let arguments = ["--config", deploy.appendingPathComponent("sectional.json").path, "--host", "127.0.0.1", "--database-url", database.url]
        let environment = ["SECTIONAL_API_TOKEN": Self.serviceToken,
                           "SECTIONAL_JWT_SECRET": "nginx-test-user-token-secret-of-32-bytes-or-more"]
        // One after the other, so the demo's seed data is loaded once.
        for _ in 0..<2 {
            let instance = try ServerProcess(arguments: arguments, environment: environment)
            instances.append(instance)
            XCTAssertTrue(instance.waitUntilReady(), instance.log)
        }
        let text = try String(contentsOf: deploy.appendingPathComponent("nginx.conf"), encoding: .utf8)
        let upstreams = instances.map(\.port)
        var derivation: Error?
        nginx = try NginxProcess { port in
            do { return try NginxProcess.localConfiguration(from: text, port: port, upstreams: upstreams) } catch {
                derivation = error
                return ""
            }
        }
        if let derivation { throw derivation }
    }

    override func tearDown() {
        nginx?.stop()
        nginx = nil
        for instance in instances { instance.signal(SIGTERM) }
        for instance in instances { _ = instance.waitForExit() }
        instances = []
        database?.drop()
        database = nil
        super.tearDown()
    }

    private func client() throws -> HTTPTestClient { try HTTPTestClient(port: try XCTUnwrap(nginx).port) }

    private var authorization: (String, String) { ("Authorization", "Bearer \(Self.serviceToken)") }

    private func put(_ client: HTTPTestClient, _ id: String, name: String, headers: [(String, String)] = []) throws -> HTTPTestClient.Answer {
        try client.request("PUT", "/v1/collections/people/records/\(id)",
                           headers: [authorization, ("Content-Type", "application/json")] + headers,
                           body: Array(#"{"name":"\#(name)","team":"Design"}"#.utf8))
    }

    func testEveryReadWithTheVersionOfTheLastWriteSeesItThoughAnotherInstanceAnswers() throws {
        let client = try client()
        let iterations = 300
        var crossed = 0
        for n in 0..<iterations {
            let id = "rw-\(n % 40)", name = "Reader \(n)"
            let written = try put(client, id, name: name)
            XCTAssertTrue([200, 201].contains(written.status), "write \(n): \(written.status) \(written.text)")
            let version = try XCTUnwrap(written.header("Sectional-Version"), "write \(n) says its version")
            // Alternately the query parameter and the header: nginx passes both on.
            let read = n.isMultiple(of: 2)
                ? try client.request("GET", "/v1/lists/contacts/rows/\(id)?minVersion=\(version)")
                : try client.request("GET", "/v1/lists/contacts/rows/\(id)", headers: [("Sectional-Min-Version", version)])
            // The first read that misses its write ends the test (each would wait a second).
            guard read.status == 200, read.text.contains(#""title":"\#(name)""#) else {
                return XCTFail("read \(n) at version \(version) does not see its write: \(read.status) \(read.text)")
            }
            XCTAssertGreaterThanOrEqual(try read.json.value("version", as: Int.self), Int(version) ?? .max, "read \(n)")
            let writer = try XCTUnwrap(written.header("Sectional-Upstream")), reader = try XCTUnwrap(read.header("Sectional-Upstream"))
            if writer != reader { crossed += 1 }
        }
        XCTAssertEqual(crossed, iterations, "round robin sends every read to the other instance than its write")
    }

    func testAuthorizationAndConditionsPassThroughAndABehindReadIs503() throws {
        let client = try client()
        let refused = try client.request("PUT", "/v1/collections/people/records/c1", headers: [("Content-Type", "application/json")],
                                         body: Array(#"{"name":"No Token","team":"Design"}"#.utf8))
        XCTAssertEqual(refused.status, 401, refused.text)
        let created = try put(client, "c1", name: "First")
        XCTAssertEqual(created.status, 201, created.text)
        let tag = try XCTUnwrap(created.header("ETag"))
        XCTAssertEqual(try put(client, "c1", name: "Second", headers: [("If-Match", "\"999999\"")]).slug, "precondition-failed")
        XCTAssertEqual(try put(client, "c1", name: "Second", headers: [("If-Match", tag)]).status, 200)
        let version = try XCTUnwrap(Int(created.header("Sectional-Version") ?? ""))
        let ahead = try client.request("GET", "/v1/lists/contacts", headers: [("Sectional-Min-Version", "\(version + 1000)")])
        XCTAssertEqual(ahead.status, 503, ahead.text)
        XCTAssertEqual(ahead.slug, "not-caught-up")
        XCTAssertEqual(ahead.header("Retry-After"), "1")
    }

    func testEventsPassThroughUnbuffered() throws {
        let stream = try HTTPTestClient(port: try XCTUnwrap(nginx).port, timeoutSeconds: 10)
        try stream.send("GET /v1/lists/contacts/events HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try stream.readUntil(": connected")
        XCTAssertTrue(head.contains("text/event-stream"), head)
        let streamedBy = try XCTUnwrap(head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("sectional-upstream:") })
        // The next request goes to the other instance; its event reaches the stream on the first.
        let written = try put(try client(), "e1", name: "Event")
        XCTAssertEqual(written.status, 201, written.text)
        XCTAssertFalse(streamedBy.hasSuffix(written.header("Sectional-Upstream") ?? "?"), "the write went to the other instance")
        let version = try XCTUnwrap(written.header("Sectional-Version"))
        do {
            let event = try stream.readUntil("\"version\":\(version)}")
            XCTAssertTrue(event.contains("event: version"), event)
        } catch {
            XCTFail("no event for version \(version) through nginx within 10 s: \(error)")
        }
    }
}
