import Foundation
import TestSupport
import XCTest

/// The real executable on PostgreSQL: `--database-url` and `SECTIONAL_DATABASE_URL` choose it,
/// and `kill -9` during a stream of writes loses no acknowledged write.
final class PostgresProcessTests: FolderTestCase {
    private var database: PostgresTestDatabase?

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard let cluster = try PostgresTestDatabase.clusterURL() else { throw XCTSkip(PostgresTestDatabase.missing) }
        database = try PostgresTestDatabase(cluster: cluster)
        try TestApp.teamsConfig.write(to: folder.appendingPathComponent("sectional.json"), atomically: true, encoding: .utf8)
    }

    override func tearDown() {
        database?.drop()
        database = nil
        super.tearDown()
    }

    func testEveryAcknowledgedWriteSurvivesKill9() throws {
        let url = try XCTUnwrap(database).url
        let config = ["--config", folder.appendingPathComponent("sectional.json").path]
        let server = try ServerProcess(arguments: config + ["--database-url", url])
        XCTAssertTrue(server.waitUntilReady())
        XCTAssertTrue(server.log.contains(#""kind":"postgres""#), server.log)
        let acknowledged = Counter()
        let writer = Thread {
            guard let client = try? HTTPTestClient(port: server.port) else { return }
            for n in 0..<100_000 {
                guard let answer = try? client.request("PUT", "/v1/collections/people/records/k\(n)",
                                                       headers: [("Content-Type", "application/json")],
                                                       body: Array("{\"name\":\"n\(n)\",\"team\":\"T\"}".utf8)),
                      answer.status == 201 else { return }
                acknowledged.increment()
            }
        }
        writer.start()
        XCTAssertTrue(eventually(within: 20) { acknowledged.value >= 50 }, "writes were acknowledged")
        server.signal(SIGKILL)
        XCTAssertNotNil(server.waitForExit())
        XCTAssertTrue(eventually(within: 5) { writer.isFinished })
        let count = acknowledged.value

        let restarted = try ServerProcess(arguments: config, environment: ["SECTIONAL_DATABASE_URL": url])
        XCTAssertTrue(restarted.waitUntilReady())
        let client = try HTTPTestClient(port: restarted.port)
        for n in 0..<count {
            XCTAssertEqual(try client.request("GET", "/v1/collections/people/records/k\(n)").status, 200, "acknowledged write k\(n) was lost")
        }
        let total: Int = try client.request("GET", "/v1/lists/people").json.value("totalRowCount")
        XCTAssertGreaterThanOrEqual(total, count + 1)
        restarted.signal(SIGTERM)
        XCTAssertEqual(restarted.waitForExit(), 0)
    }

    func testTheStorageFlagsExcludeEachOther() throws {
        let both = try ChildProcess.run(ServerProcess.executable, ["serve", "--data", "x.sqlite", "--database-url", "postgresql:///x"])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.errors.contains("--data, --memory and --database-url exclude each other"), both.errors)
    }
}
