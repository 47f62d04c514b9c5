import Foundation
import TestSupport
import XCTest

/// Passing faults of a PostgreSQL database, made in another session while the server runs: a
/// database made read-only, and a table locked longer than the server's lock timeout. Writes are
/// refused `503 storage-unavailable` with `Retry-After` (never `500`, never a wait as long as the
/// fault), nothing of them is kept, reads go on, and writes succeed again once the fault clears,
/// with no restart and no connection dropped by hand.
final class PostgresStorageFaultTests: PostgresDatabaseTestCase {
    private static func person(_ id: String) -> String { #"{"id":"\#(id)","name":"\#(id)","team":"Design"}"# }

    /// The fault `/readyz` names, or nil.
    private func readyFault(_ app: TestApp) -> String? {
        (try? app.get("/readyz").json["storageFault"]) as? String
    }

    /// `ALTER DATABASE … SET default_transaction_read_only` (what a hot standby also answers:
    /// SQLSTATE 25006) is the `read-only` fault; after `RESET` the server's sessions, which took
    /// the setting when they started, are replaced by the next write, which succeeds.
    func testAReadOnlyDatabaseRefusesWrites503UntilItIsWritableAgain() throws {
        let database = try XCTUnwrap(self.database)
        let app = try TestApp(postgres: database.url)
        try app.seed([("p1", "Ada", "Design")])
        try database.query("ALTER DATABASE \(database.name) SET default_transaction_read_only = on")
        // A session takes the database's default when it starts: end the server's (as a failover
        // would), so the sessions it starts next are read-only.
        try database.query("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)

        var statuses: Set<Int> = []
        var refused: HTTPTestClient.Answer?
        XCTAssertTrue(eventually(within: 20) {
            guard let answer = try? app.put("people", "p2", Self.person("p2")) else { return false }
            statuses.insert(answer.status)
            refused = answer
            return answer.status != 503 || readyFault(app) == "read-only"
        }, "/readyz names the read-only fault")
        XCTAssertEqual(statuses, [503], "every write is refused 503 (the first ones while the server reconnects)")
        let answer = try XCTUnwrap(refused)
        XCTAssertEqual(answer.slug, "storage-unavailable", answer.text)
        XCTAssertEqual(answer.header("Retry-After"), "10")
        XCTAssertTrue(answer.text.contains("read-only"), answer.text)
        XCTAssertEqual(try app.get("/readyz").status, 200, "reads are served")
        XCTAssertEqual(try app.get("/v1/lists/people").status, 200)
        // The server's read connection meets its ended session once (503 unreachable), then reconnects.
        XCTAssertTrue(eventually(within: 10) { (try? app.get("/v1/collections/people/records/p1").status) == 200 }, "reads go on")
        XCTAssertEqual(try app.get("/v1/collections/people/records/p2").status, 404, "nothing of a refused write is kept")

        // Writable again; no session of the server is ended this time.
        try database.query("BEGIN READ WRITE; ALTER DATABASE \(database.name) RESET default_transaction_read_only; COMMIT")
        statuses = []
        XCTAssertTrue(eventually(within: 20) {
            guard let answer = try? app.put("people", "p2", Self.person("p2")) else { return false }
            statuses.insert(answer.status)
            return answer.status == 201
        }, "writes succeed again without a restart")
        XCTAssertEqual(statuses.subtracting([503]), [201], "no write answered anything but 503 or 201")
        XCTAssertNil(readyFault(app), "the fault cleared")
        XCTAssertEqual(try app.get("/v1/collections/people/records/p2").status, 200)
    }

    /// `LOCK TABLE records` held by another session: a write waits no longer than the lock
    /// timeout (5 s, as SQLite's busy timeout), is refused `503 locked` with `Retry-After: 1` and
    /// kept nowhere, and the write sent again once the lock is released succeeds.
    func testATableLockedLongerThanTheLockTimeoutRefusesWrites503() throws {
        let database = try XCTUnwrap(self.database)
        let app = try TestApp(postgres: database.url)
        try app.seed([("p1", "Ada", "Design")])
        let holder = try PostgresTestSession(url: database.url)
        defer { holder.close() }
        try holder.query("BEGIN")
        try holder.query("LOCK TABLE records IN ACCESS EXCLUSIVE MODE")

        // Without a lock timeout the write would wait as long as the lock is held: the client
        // gives up after 30 s (the answer is due after 5).
        let client = try HTTPTestClient(port: app.port, timeoutSeconds: 30)
        let refused = try client.request("PUT", "/v1/collections/people/records/p2",
                                          headers: [("Content-Type", "application/json")], body: Array(Self.person("p2").utf8))
        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertEqual(refused.slug, "storage-unavailable")
        XCTAssertEqual(refused.header("Retry-After"), "1")
        XCTAssertTrue(refused.text.contains("locked"), refused.text)
        XCTAssertEqual(readyFault(app), "locked")
        XCTAssertEqual(try app.get("/v1/lists/people").status, 200, "reads go on")
        // The writes after one that waited out the timeout are refused in turn, not 5 s each.
        let queued = ContinuousClock.now
        for id in ["p3", "p4", "p5"] {
            let next = try client.request("PUT", "/v1/collections/people/records/\(id)",
                                          headers: [("Content-Type", "application/json")], body: Array(Self.person(id).utf8))
            XCTAssertEqual(next.status, 503, next.text)
        }
        XCTAssertLessThan(ContinuousClock.now - queued, .seconds(12), "three more refused at once, not after a timeout each (15 s)")

        try holder.query("COMMIT")
        try app.put("people", "p2", Self.person("p2")).expect(201)  // 201: the refused write was not kept
        XCTAssertNil(readyFault(app), "the fault cleared")
    }
}
