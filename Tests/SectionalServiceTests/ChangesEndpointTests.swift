import Foundation
import TestSupport
import XCTest

/// `changes` over HTTP, checked with the reference applier (`ChangesApplier` in TestSupport).
final class ChangesEndpointTests: XCTestCase {
    /// The outline through a view: section keys and visible row ids, walked page by page.
    private func outline(_ app: TestApp, view: String) throws -> (version: Int, sections: [ChangesApplier.Section]) {
        try walkPages { token in try app.get("/v1/lists/people/rows?pageSize=7&view=\(view)" + (token.map { "&pageToken=\($0)" } ?? "")).json }
    }

    func testEveryRetainedVersionDiffsToTheCurrentOutline() throws {
        let app = try TestApp()
        try app.seed((1...12).map { ("p\($0)", "N\(String(format: "%02d", $0))", ["Design", "Sales", "Archived"][$0 % 3]) })
        let view = try app.createView(#"{"hidden":["Sales"]}"#)
        var outlines = [try outline(app, view: view)]
        var generator = SplitMix64.replayable(name)
        let teams = ["Design", "Sales", "Archived", "Support", "Legal"]
        for step in 0..<12 {
            let id = "p\(Int.random(in: 1...16, using: &generator))"
            if step % 4 == 3 {
                let deleted = try app.request("DELETE", "/v1/collections/people/records/\(id)")
                XCTAssertTrue([204, 404].contains(deleted.status), deleted.text)
            } else {
                let name = "N\(Int.random(in: 0...20, using: &generator))"
                let team = teams[Int.random(in: 0..<teams.count, using: &generator)]
                let put = try app.put("people", id, "{\"name\":\"\(name)\",\"team\":\"\(team)\"}")
                XCTAssertTrue([200, 201].contains(put.status), put.text)
            }
            outlines.append(try outline(app, view: view))
        }
        let current = outlines[outlines.count - 1]
        XCTAssertGreaterThan(current.version, outlines[0].version)
        for old in outlines {
            let answer = try app.get("/v1/lists/people/changes?since=\(old.version)&view=\(view)")
            XCTAssertEqual(answer.status, 200, answer.text)
            XCTAssertEqual(try answer.json["reload"] as? Bool, false)
            XCTAssertEqual(try answer.json["to"] as? Int, current.version)
            XCTAssertNoThrow(try ChangesApplier.apply(old: old.sections, changes: answer.body, new: current.sections),
                             "since \(old.version): \(answer.text)")
        }
    }

    func testOneChangedRecordGivesOneRowOperation() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design"), ("p2", "Bea", "Design"), ("p3", "Cy", "Design")])
        let version = try app.version()
        XCTAssertEqual(try app.put("people", "p2", #"{"name":"Zed","team":"Design"}"#).status, 200)
        let changes = try app.get("/v1/lists/people/changes?since=\(version)").json
        let rows: [String: [Any]] = try changes.value("rows")
        XCTAssertEqual(rows.values.reduce(0) { $0 + $1.count }, 1, "\(rows)")
        XCTAssertEqual((rows["moved"]?.first as? [String: Any])?["updated"] as? Bool, true)
    }

    func testEdgesOfSince() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let version = try app.version()
        let same = try app.get("/v1/lists/people/changes?since=\(version)").json
        XCTAssertEqual(same["reload"] as? Bool, false)
        XCTAssertEqual((same["rows"] as? [String: [Any]])?["inserted"]?.count, 0)
        XCTAssertEqual(try app.get("/v1/lists/people/changes?since=\(version + 1)").slug, "invalid-version")
        XCTAssertEqual(try app.get("/v1/lists/people/changes?since=-1").slug, "invalid-version")
        XCTAssertEqual(try app.get("/v1/lists/people/changes?since=x").slug, "invalid-version")
        XCTAssertEqual(try app.get("/v1/lists/people/changes").slug, "invalid-version")
        // Version 0 came before this server's history began (the list was built empty at 0 and the
        // seed is one batch after it): the batch is answerable, but maxChanges=0 forces a reload.
        let reload = try app.get("/v1/lists/people/changes?since=0&maxChanges=0").json
        XCTAssertEqual(reload["reload"] as? Bool, true)
        XCTAssertNil(reload["rows"])
        XCTAssertEqual(reload["from"] as? Int, 0)
        XCTAssertEqual(reload["to"] as? Int, version)
    }

    func testASinceFromBeforeARestartAnswersReload() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let app = try TestApp(folder: folder, sqlite: true)
            try app.seed([("p1", "Ada", "Design")])
            try app.seed([("p2", "Bea", "Design")])
            app.server.stop()
        }
        let app = try TestApp(folder: folder, sqlite: true)
        let version = try app.version()
        XCTAssertEqual(try app.get("/v1/lists/people/changes?since=\(version - 1)").json["reload"] as? Bool, true)
        XCTAssertEqual(try app.get("/v1/lists/people/changes?since=\(version)").json["reload"] as? Bool, false)
    }
}
