import Foundation
import ListModel
@testable import SectionalService
import Synchronization
import TestSupport
import XCTest

/// What happens over a server's life: views expiring, seeds on restart, duplicate rows counted.
final class LifecycleTests: FolderTestCase {
    /// A server on SQLite in `folder` whose view clock is `now` and whose sweeper runs every
    /// `sweepSeconds`; views live 100 s.
    private func start(now: TestClock, sweepSeconds: Double) throws -> SectionalServer {
        var configuration = try Configuration.parse(try JSONParser.parse(TestApp.teamsConfig), folder: folder.path)
        configuration.server.host = "127.0.0.1"
        configuration.server.port = 0
        configuration.server.threads = 2
        configuration.storage = .sqlite(path: folder.appendingPathComponent("test.sqlite").path)
        configuration.viewTTLSeconds = 100
        let server = SectionalServer(configuration: configuration, log: Log(level: .error), clock: { now.seconds },
                                     sweepSeconds: sweepSeconds)
        try server.start()
        return server
    }

    /// View uses are written (and idle views expired) every minute, or every quarter of the TTL
    /// when that is shorter: another instance expiring views reads the uses written, so with the
    /// least TTL, a minute, a write a minute let it expire a view read every 20 s elsewhere.
    func testViewUsesAreWrittenWellWithinTheirTTL() {
        XCTAssertEqual(SectionalServer.sweepSeconds(viewTTLSeconds: 60), 15)
        XCTAssertEqual(SectionalServer.sweepSeconds(viewTTLSeconds: 100), 25)
        XCTAssertEqual(SectionalServer.sweepSeconds(viewTTLSeconds: 2_592_000), 60, "the default TTL: every minute")
    }

    private func request(_ server: SectionalServer, _ method: String, _ target: String) throws -> HTTPTestClient.Answer {
        try HTTPTestClient(port: server.port).request(method, target)
    }

    private func viewsHeld(_ server: SectionalServer) throws -> Double? {
        metricValue(try request(server, "GET", "/metrics").text, "sectional_views")
    }

    func testTheSweeperRemovesAnIdleView() throws {
        let now = TestClock(1_000_000)
        let server = try start(now: now, sweepSeconds: 0.05)
        defer { server.stop(gracePeriod: 1) }
        let id = try request(server, "POST", "/v1/lists/people/views").expect(201).json.value("view", as: String.self)
        now.advance(50)
        XCTAssertEqual(try request(server, "GET", "/v1/lists/people/views/\(id)").status, 200, "used within the TTL")
        now.advance(101)
        XCTAssertTrue(eventually { (try? self.viewsHeld(server)) == 0 }, "the sweeper removed the idle view")
        XCTAssertEqual(try request(server, "GET", "/v1/lists/people/views/\(id)").slug, "view-not-found")
    }

    func testAnExpiredViewNotYetSweptIsNotFound() throws {
        let now = TestClock(1_000_000)
        let server = try start(now: now, sweepSeconds: 3_600)
        defer { server.stop(gracePeriod: 1) }
        let id = try request(server, "POST", "/v1/lists/people/views").expect(201).json.value("view", as: String.self)
        now.advance(101)
        XCTAssertEqual(try viewsHeld(server), 1, "not swept yet")
        XCTAssertEqual(try request(server, "GET", "/v1/lists/people/views/\(id)").slug, "view-not-found")
        XCTAssertEqual(try request(server, "GET", "/v1/lists/people?view=\(id)").slug, "view-not-found")
        XCTAssertEqual(try request(server, "POST", "/v1/lists/people/views/\(id)/sections/0/toggle").slug, "view-not-found")
    }

    func testAViewThatExpiredWhileStoppedIsNotServedAtStartUp() throws {
        let now = TestClock(1_000_000)
        var id = ""
        do {
            let server = try start(now: now, sweepSeconds: 3_600)
            id = try request(server, "POST", "/v1/lists/people/views").expect(201).json.value("view", as: String.self)
            server.stop(gracePeriod: 1)
        }
        now.advance(101)
        let server = try start(now: now, sweepSeconds: 3_600)
        defer { server.stop(gracePeriod: 1) }
        XCTAssertEqual(try viewsHeld(server), 0, "expired at start-up")
        XCTAssertEqual(try request(server, "GET", "/v1/lists/people/views/\(id)").slug, "view-not-found")
    }

    func testSeedsGoOnlyIntoEmptyCollections() throws {
        let seed = folder.appendingPathComponent("people.json")
        try Data(#"[{"id":"p1","name":"Ada","team":"Design"},{"id":"p2","name":"Alan","team":"Design"}]"#.utf8).write(to: seed)
        let config = TestApp.teamsConfig.replacingOccurrences(of: "\"lists\": {", with: "\"seed\": {\"people\": \"people.json\"}, \"lists\": {")
        do {
            let app = try TestApp(config: config, folder: folder, sqlite: true)
            XCTAssertEqual(try app.get("/v1/collections/people/records/p1").json.value("name", as: String.self), "Ada", "seeded")
            XCTAssertEqual(try app.put("people", "p1", #"{"name":"Ada L.","team":"Design"}"#).status, 200)
            XCTAssertEqual(try app.request("DELETE", "/v1/collections/people/records/p2").status, 204)
            app.server.stop()
        }
        let app = try TestApp(config: config, folder: folder, sqlite: true)
        XCTAssertEqual(try app.get("/v1/collections/people/records/p1").json.value("name", as: String.self), "Ada L.", "not overwritten")
        XCTAssertEqual(try app.get("/v1/collections/people/records/p2").slug, "record-not-found", "not re-seeded")
    }

    func testDuplicateRowsAreDroppedAndCounted() throws {
        let app = try TestApp(config: """
            {"lists": {"both": {"sections": [
              {"source": "a", "key": "A", "row": {"title": "{name}"}},
              {"source": "b", "key": "B", "row": {"title": "{name}"}}
            ]}}}
            """)
        XCTAssertEqual(try app.metric("sectional_duplicate_rows_total{list=\"both\"}"), 0)
        XCTAssertEqual(try app.put("a", "x", #"{"name":"from a"}"#).status, 201)
        XCTAssertEqual(try app.put("b", "x", #"{"name":"from b"}"#).status, 201)
        let outline = try app.get("/v1/lists/both").json
        XCTAssertEqual(try outline.value("rowCount", as: Int.self), 1, "one row for the id")
        let sections: [[String: Any]] = try app.get("/v1/lists/both/rows").json.value("sections")
        let rows = try sections.flatMap { try $0.value("rows", as: [[String: Any]].self) }
        XCTAssertEqual(try rows.map { try $0.value("title", as: String.self) }, ["from a"],
                       "the first spec keeps the id")
        XCTAssertEqual(try app.metric("sectional_duplicate_rows_total{list=\"both\"}"), 1)
    }
}

/// Seconds since 1970 that a test moves by hand.
final class TestClock: Sendable {
    private let value: Atomic<Int64>
    init(_ start: Int64) { value = Atomic(start) }
    var seconds: Int64 { value.load(ordering: .relaxed) }
    func advance(_ by: Int64) { value.add(by, ordering: .relaxed) }
}
