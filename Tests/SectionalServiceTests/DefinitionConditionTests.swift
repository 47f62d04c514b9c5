import Dispatch
import Foundation
import Locking
import TestSupport
import XCTest

/// A list's definition carries a validator (`"runtime-<revision>"` or `"config-<fingerprint>"`)
/// and `PUT` / `DELETE …/definition` honour `If-Match` / `If-None-Match`, so two operators editing
/// one definition cannot overwrite each other unseen.
final class DefinitionConditionTests: XCTestCase {
    private static let token = DefinitionEndpointTests.token
    private static var service: [(String, String)] { [("Authorization", "Bearer \(token)")] }

    /// A `PUT` of a one-section list titled `title`, on a new connection (callable from several threads at once).
    private static func put(port: Int, _ list: String, title: String, _ headers: [(String, String)] = []) throws -> HTTPTestClient.Answer {
        let json = #"{ "title": "\#(title)", "sections": [ { "key": "a", "title": "A", "rows": [ { "id": "r", "title": "R" } ] } ] }"#
        return try HTTPTestClient(port: port).request("PUT", "/v1/lists/\(list)/definition",
                                                      headers: service + headers + [("Content-Type", "application/json")],
                                                      body: Array(json.utf8))
    }

    /// The revision a definition write's `ETag` (`"runtime-N"`) names.
    private static func revision(_ answer: HTTPTestClient.Answer) throws -> Int64 {
        let tag = try XCTUnwrap(answer.header("ETag"))
        XCTAssertTrue(tag.hasPrefix("\"runtime-") && tag.hasSuffix("\""), tag)
        return try XCTUnwrap(Int64(tag.dropFirst(9).dropLast()), tag)
    }

    private func title(_ app: TestApp, _ list: String) throws -> String {
        try app.get("/v1/lists/\(list)/definition").expect(200).json.value("definition", as: [String: Any].self).value("title", as: String.self)
    }

    func testAStaleTagIsRefusedAndTheCurrentOneWins() throws {
        let app = try TestApp(token: Self.token)
        let read = try app.get("/v1/lists/people/definition").expect(200)
        let config = try XCTUnwrap(read.header("ETag"))
        XCTAssertTrue(config.hasPrefix("\"config-"), config)
        XCTAssertEqual(try app.request("GET", "/v1/lists/people/definition", headers: [("If-None-Match", config)]).status, 304)

        let first = try Self.put(port: app.port, "people", title: "One", [("If-Match", config)]).expect(200)
        // Revisions count from where the store's numbers start (the clock, for a memory store).
        let one = try Self.revision(first)
        XCTAssertEqual(try app.get("/v1/lists/people/definition").header("ETag"), "\"runtime-\(one)\"", "GET names the same definition")
        let stale = try Self.put(port: app.port, "people", title: "Two", [("If-Match", config)])
        XCTAssertEqual(stale.status, 412)
        XCTAssertEqual(stale.slug, "precondition-failed")
        XCTAssertEqual(try title(app, "people"), "One", "the refused change stored nothing")
        XCTAssertEqual(try Self.put(port: app.port, "people", title: "Two", [("If-Match", "W/\"runtime-\(one)\"")]).status, 412,
                       "If-Match compares strongly")
        XCTAssertEqual(try Self.put(port: app.port, "people", title: "Two", [("If-Match", "\"runtime-\(one)-gzip\"")]).expect(200)
                        .header("ETag"), "\"runtime-\(one + 1)\"", "the tag of a gzip answer names the same definition")
        XCTAssertEqual(try app.request("DELETE", "/v1/lists/people/definition", headers: Self.service + [("If-Match", "\"runtime-\(one)\"")]).status, 412)
        XCTAssertEqual(try title(app, "people"), "Two")
        try app.request("DELETE", "/v1/lists/people/definition", headers: Self.service + [("If-Match", "\"runtime-\(one + 1)\"")]).expect(204)
        XCTAssertEqual(try app.get("/v1/lists/people/definition").header("ETag"), config, "the config's definition is in force again")
        XCTAssertEqual(try app.request("DELETE", "/v1/lists/people/definition", headers: Self.service + [("If-Match", config)]).slug,
                       "list-not-found", "nothing to remove comes before the condition")
    }

    func testIfNoneMatchStarOnlyCreatesAndIfMatchStarOnlyReplaces() throws {
        let app = try TestApp(token: Self.token)
        let onConfig = try Self.put(port: app.port, "people", title: "Taken", [("If-None-Match", "*")])
        XCTAssertEqual(onConfig.status, 412, "a config list is served")
        XCTAssertEqual(try title(app, "people"), "People")
        XCTAssertEqual(try Self.put(port: app.port, "faq", title: "FAQ", [("If-Match", "*")]).status, 412, "no list to replace")
        XCTAssertEqual(try app.get("/v1/lists/faq/definition").slug, "list-not-found", "and none was made")
        let created = try Self.put(port: app.port, "faq", title: "FAQ", [("If-None-Match", "*")])
        XCTAssertEqual(created.status, 201)
        let one = try Self.revision(created)
        XCTAssertEqual(try Self.put(port: app.port, "faq", title: "Again", [("If-None-Match", "*")]).status, 412, "created once")
        XCTAssertEqual(try title(app, "faq"), "FAQ")
        try Self.put(port: app.port, "faq", title: "Replaced", [("If-Match", "*")]).expect(200)
        try Self.put(port: app.port, "people", title: "Replaced", [("If-Match", "*")]).expect(200)
        try app.request("DELETE", "/v1/lists/faq/definition", headers: Self.service + [("If-Match", "*")]).expect(204)
        XCTAssertEqual(try Self.put(port: app.port, "faq", title: "Back", [("If-None-Match", "*")]).status, 201, "gone: created again")
        // Created (one), replaced (one + 1), removed (one + 2), created again (one + 3).
        let four = "\"runtime-\(one + 3)\""
        XCTAssertEqual(try Self.put(port: app.port, "faq", title: "Both", [("If-Match", four), ("If-None-Match", four)]).status,
                       412, "both conditions must hold")
        XCTAssertEqual(try Self.put(port: app.port, "faq", title: "Not", [("If-None-Match", "W/" + four)]).status, 412,
                       "If-None-Match compares weakly")
        XCTAssertEqual(try Self.put(port: app.port, "faq", title: "Not", [("If-None-Match", "\"runtime-\(one + 2)\"")]).status, 200)
        XCTAssertEqual(try title(app, "faq"), "Not")
    }

    /// The config's tag is its definition's fingerprint: a reloaded config file with the list
    /// edited names another definition, so a change expecting the one before is refused.
    func testTheConfigTagChangesWhenTheConfigFileIsReloadedWithTheListEdited() throws {
        let app = try TestApp(token: Self.token)
        let before = try XCTUnwrap(app.get("/v1/lists/people/definition").header("ETag"))
        let file = app.folder.appendingPathComponent("reloaded.json")
        try Data(TestApp.teamsConfig.replacingOccurrences(of: #""title": "People""#, with: #""title": "Everyone""#).utf8).write(to: file)
        XCTAssertTrue(app.reload(file))
        let after = try XCTUnwrap(app.get("/v1/lists/people/definition").header("ETag"))
        XCTAssertNotEqual(after, before)
        XCTAssertEqual(try title(app, "people"), "Everyone")
        XCTAssertEqual(try Self.put(port: app.port, "people", title: "Mine", [("If-Match", before)]).status, 412)
        try Self.put(port: app.port, "people", title: "Mine", [("If-Match", after)]).expect(200)
    }

    /// Two operators send a change expecting the same definition at once: exactly one is made.
    func testOfTwoChangesRacingWithIfMatchExactlyOneWins() throws {
        let app = try TestApp(sqlite: true, token: Self.token)
        var tag = try XCTUnwrap(app.get("/v1/lists/people/definition").header("ETag"))
        for round in 0..<10 {
            let outcomes = Locked<[(title: String, status: Int, tag: String?)]>([])
            let (port, expected) = (app.port, tag)
            DispatchQueue.concurrentPerform(iterations: 2) { writer in
                let title = "W\(writer)-\(round)"
                let answer = try? Self.put(port: port, "people", title: title, [("If-Match", expected)])
                outcomes.withLock { $0.append((title, answer?.status ?? -1, answer?.header("ETag"))) }
            }
            let all = outcomes.withLock { $0 }
            XCTAssertEqual(all.map(\.status).sorted(), [200, 412], "round \(round): \(all)")
            let winner = try XCTUnwrap(all.first { $0.status == 200 }, "round \(round)")
            XCTAssertEqual(try title(app, "people"), winner.title, "round \(round): the winner's definition is in force")
            tag = try XCTUnwrap(winner.tag)
            XCTAssertEqual(try app.get("/v1/lists/people/definition").header("ETag"), tag)
        }
    }
}
