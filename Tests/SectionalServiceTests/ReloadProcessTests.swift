import Foundation
import Locking
import SectionalService
import TestSupport
import XCTest

/// `SIGHUP` re-reads the config file's lists in a running server process.
final class ReloadProcessTests: FolderTestCase {
    private var configFile: URL { folder.appendingPathComponent("sectional.json") }

    private func title(_ port: Int, _ list: String) throws -> String? {
        let answer = try HTTPTestClient(port: port).request("GET", "/v1/lists/\(list)")
        return answer.status == 200 ? try answer.json.value("title") : nil
    }

    func testSighupReloadsAValidFileAndKeepsTheListsOnAnInvalidOne() throws {
        try TestApp.teamsConfig.write(to: configFile, atomically: true, encoding: .utf8)
        let server = try ServerProcess(arguments: ["--config", configFile.path, "--data", folder.appendingPathComponent("db.sqlite").path])
        XCTAssertTrue(server.waitUntilReady())
        XCTAssertEqual(try title(server.port, "people"), "People")
        let before: Int = try HTTPTestClient(port: server.port).request("GET", "/v1/lists/people").json.value("version")

        let edited = TestApp.teamsConfig.replacingOccurrences(of: "\"title\": \"People\"", with: "\"title\": \"Crew\"")
            .replacingOccurrences(of: "\"lists\": {", with: """
                "lists": { "faq": { "sections": [ { "key": "q", "rows": [ { "id": "q1", "title": "Why?" } ] } ] },
                """)
        XCTAssertNotEqual(edited, TestApp.teamsConfig)
        try edited.write(to: configFile, atomically: true, encoding: .utf8)
        server.signal(SIGHUP)
        XCTAssertTrue(eventually(within: 10) { (try? self.title(server.port, "people")) == "Crew" }, server.log)
        XCTAssertEqual(try title(server.port, "faq"), "faq", "a list added to the file is served (titled by its name)")
        let after: Int = try HTTPTestClient(port: server.port).request("GET", "/v1/lists/people").json.value("version")
        XCTAssertGreaterThan(after, before, "the version moves with the definition")
        let changes = try HTTPTestClient(port: server.port).request("GET", "/v1/lists/people/changes?since=\(before)").json
        XCTAssertEqual(try changes.value("reload", as: Bool.self), true)

        try #"{"lists": {"people": {"sections": [{"titel": 1}]}}, "sever": {}}"#.write(to: configFile, atomically: true, encoding: .utf8)
        server.signal(SIGHUP)
        XCTAssertTrue(eventually(within: 10) { server.log.contains("config reload failed") }, server.log)
        let failure = try XCTUnwrap(server.log.split(separator: "\n").first { $0.contains("config reload failed") })
        XCTAssertTrue(failure.contains("sever") && failure.contains("lists.people.sections[0]"), "every problem is logged: \(failure)")
        XCTAssertEqual(try title(server.port, "people"), "Crew", "the lists in force are kept")
        XCTAssertEqual(try title(server.port, "faq"), "faq")
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/v1/lists/people").json.value("version", as: Int.self), after)

        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0, "SIGHUP never ended the process")
    }

    /// A reload asked for before the server is ready (a `SIGHUP` while it loads) is done once it is.
    func testAReloadAskedForWhileStartingIsDoneOnceReady() throws {
        try TestApp.teamsConfig.write(to: configFile, atomically: true, encoding: .utf8)
        var configuration = try Configuration.load(path: configFile.path, environment: [:])
        configuration.server.port = 0
        configuration.storage = .memory
        let app = SectionalServer(configuration: configuration, log: Log(level: .error))
        defer { app.stop(gracePeriod: 1) }
        try TestApp.teamsConfig.replacingOccurrences(of: "\"title\": \"People\"", with: "\"title\": \"Crew\"")
            .write(to: configFile, atomically: true, encoding: .utf8)
        let answered = Locked<Bool?>(nil)
        app.reloadLists(configPath: configFile.path) { done in answered.withLock { $0 = done } }
        XCTAssertEqual(answered.withLock { $0 }, false, "not ready: not done yet")
        try app.start()
        XCTAssertTrue(eventually(within: 10) { (try? self.title(app.port, "people")) == "Crew" }, "done once ready")
    }
}
