import Foundation
import TestSupport
import XCTest

/// The real executable on PostgreSQL: `--database-url` and `SECTIONAL_DATABASE_URL` choose it,
/// and `kill -9` during a stream of writes loses no acknowledged write.
final class PostgresProcessTests: FolderTestCase {
    private var database: PostgresTestDatabase?

    override func setUpWithError() throws {
        try super.setUpWithError()
        let cluster = try PostgresTestDatabase.clusterURL()
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
        try assertKill9LosesNoAcknowledgedWrite(start: {
            let server = try ServerProcess(arguments: config + ["--database-url", url])
            XCTAssertTrue(server.waitUntilReady())
            XCTAssertTrue(server.log.contains(#""kind":"postgres""#), server.log)
            return server
        }, restart: { try ServerProcess(arguments: config, environment: ["SECTIONAL_DATABASE_URL": url]) })
    }

    func testTheStorageFlagsExcludeEachOther() throws {
        let both = try ChildProcess.run(ServerProcess.executable, ["serve", "--data", "x.sqlite", "--database-url", "postgresql:///x"])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.errors.contains("--data, --memory and --database-url exclude each other"), both.errors)
    }
}
