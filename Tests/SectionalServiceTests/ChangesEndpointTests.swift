import Foundation
import TestSupport
import XCTest

/// `changes` over HTTP, checked with the project's reference applier (`shared/tools/apply_changes.py`).
final class ChangesEndpointTests: XCTestCase {
    /// The outline as the applier wants it: section keys and visible row ids, walked page by page.
    private func outline(_ app: TestApp, view: String) throws -> (version: Int, sections: [[String: Any]]) {
        var sections: [(key: String, rows: [String])] = []
        var token: String?
        var version = -1
        repeat {
            var target = "/v1/lists/people/rows?pageSize=7&view=\(view)"
            if let token { target += "&pageToken=\(token)" }
            let page = try app.get(target).json
            if version == -1 { version = page["version"] as! Int }
            XCTAssertEqual(page["version"] as? Int, version, "no writes run during a walk")
            for section in page["sections"] as? [[String: Any]] ?? [] {
                let key = section["key"] as! String
                let rows = (section["rows"] as? [[String: Any]] ?? []).map { $0["id"] as! String }
                if sections.last?.key == key { sections[sections.count - 1].rows += rows } else { sections.append((key, rows)) }
            }
            token = page["nextPageToken"] as? String
        } while token != nil
        return (version, sections.map { ["key": $0.key, "rows": $0.rows] })
    }

    private var applier: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/tools/apply_changes.py").standardized
    }

    /// Runs the reference applier on OLD + CHANGES, checking the result equals NEW.
    private func apply(old: [[String: Any]], changes: [UInt8], new: [[String: Any]]) throws -> (ok: Bool, message: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("changes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try JSONSerialization.data(withJSONObject: old).write(to: folder.appendingPathComponent("old.json"))
        try Data(changes).write(to: folder.appendingPathComponent("changes.json"))
        try JSONSerialization.data(withJSONObject: new).write(to: folder.appendingPathComponent("new.json"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", applier.path] + ["old.json", "changes.json", "new.json"].map { folder.appendingPathComponent($0).path }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus == 0, message)
    }

    func testEveryRetainedVersionDiffsToTheCurrentOutline() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: applier.path), "the reference applier is beside the repository")
        let app = try TestApp()
        try app.seed((1...12).map { ("p\($0)", "N\(String(format: "%02d", $0))", ["Design", "Sales", "Archived"][$0 % 3]) })
        let view = try app.request("POST", "/v1/lists/people/views", json: #"{"hidden":["Sales"]}"#).json["view"] as! String
        var outlines = [try outline(app, view: view)]
        var generator = SystemRandomNumberGenerator()
        let teams = ["Design", "Sales", "Archived", "Support", "Legal"]
        for step in 0..<12 {
            let id = "p\(Int.random(in: 1...16, using: &generator))"
            if step % 4 == 3 {
                _ = try app.request("DELETE", "/v1/collections/people/records/\(id)")
            } else {
                let name = "N\(Int.random(in: 0...20, using: &generator))"
                let team = teams.randomElement(using: &generator)!
                XCTAssertLessThan(try app.put("people", id, "{\"name\":\"\(name)\",\"team\":\"\(team)\"}").status, 300)
            }
            outlines.append(try outline(app, view: view))
        }
        let current = outlines.last!
        for old in outlines {
            let answer = try app.get("/v1/lists/people/changes?since=\(old.version)&view=\(view)")
            XCTAssertEqual(answer.status, 200, answer.text)
            XCTAssertEqual(answer.json["reload"] as? Bool, false)
            XCTAssertEqual(answer.json["to"] as? Int, current.version)
            let result = try apply(old: old.sections, changes: answer.body, new: current.sections)
            XCTAssertTrue(result.ok, "since \(old.version): \(result.message)\n\(answer.text)")
        }
    }

    func testOneChangedRecordGivesOneRowOperation() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design"), ("p2", "Bea", "Design"), ("p3", "Cy", "Design")])
        let version = try app.get("/v1/lists/people").json["version"] as! Int
        XCTAssertEqual(try app.put("people", "p2", #"{"name":"Zed","team":"Design"}"#).status, 200)
        let changes = try app.get("/v1/lists/people/changes?since=\(version)").json
        let rows = changes["rows"] as! [String: [Any]]
        XCTAssertEqual(rows.values.reduce(0) { $0 + $1.count }, 1, "\(rows)")
        XCTAssertEqual((rows["moved"]?.first as? [String: Any])?["updated"] as? Bool, true)
    }

    func testEdgesOfSince() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let version = try app.get("/v1/lists/people").json["version"] as! Int
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
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let app = try TestApp(folder: folder, sqlite: true)
            try app.seed([("p1", "Ada", "Design")])
            try app.seed([("p2", "Bea", "Design")])
            app.server.stop()
        }
        let app = try TestApp(folder: folder, sqlite: true)
        let version = try app.get("/v1/lists/people").json["version"] as! Int
        XCTAssertEqual(try app.get("/v1/lists/people/changes?since=\(version - 1)").json["reload"] as? Bool, true)
        XCTAssertEqual(try app.get("/v1/lists/people/changes?since=\(version)").json["reload"] as? Bool, false)
    }
}
