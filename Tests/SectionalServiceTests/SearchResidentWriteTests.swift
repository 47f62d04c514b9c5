import Foundation
import TestSupport
import XCTest

/// A write into a list with resident searches moves only the results it enters, leaves or is
/// in; every other result keeps its rows and is served at the list's version all the same
/// (pages, entity tags and `changes`).
final class SearchResidentWriteTests: XCTestCase {
    static let config = """
    {
      "lists": {
        "people": {
          "search": { "fields": ["name"] },
          "sections": [
            { "key": "pinned", "type": "pinned", "title": "Pinned", "rows": [ { "id": "me", "type": "profile", "title": "Me" } ] },
            { "source": "people", "groupBy": "team", "type": "team", "title": "{$key} ({$count})",
              "sortBy": [ { "field": "name" } ], "row": { "type": "person", "title": "{name}" } }
          ]
        }
      }
    }
    """

    private func person(_ app: TestApp, _ id: String, _ name: String, team: String = "Design") throws {
        try app.request("PUT", "/v1/collections/people/records/\(id)", json: #"{"name":"\#(name)","team":"\#(team)"}"#).expect(200...201)
    }

    /// Every page of the search `q`: its version and outline.
    private func outline(_ app: TestApp, _ q: String) throws -> (version: Int, sections: [ChangesApplier.Section]) {
        try walkPages { token in
            let answer = try app.get("/v1/lists/people/rows?q=\(q)&pageSize=2" + (token.map { "&pageToken=\($0)" } ?? ""))
            XCTAssertEqual(answer.status, 200, answer.text)
            return try answer.json
        }
    }

    /// `changes` of the search `q` since `since`, checked to turn `old` into `new`: how many rows
    /// and sections it inserts and deletes.
    private func changes(_ app: TestApp, _ q: String, since: Int, old: [ChangesApplier.Section],
                         new: (version: Int, sections: [ChangesApplier.Section])) throws
        -> (inserted: Int, deleted: Int, sectionsInserted: Int) {
        let answer = try app.get("/v1/lists/people/changes?since=\(since)&q=\(q)")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(try answer.json["reload"] as? Bool, false, answer.text)
        XCTAssertEqual(try answer.json["to"] as? Int, new.version, answer.text)
        XCTAssertNoThrow(try ChangesApplier.apply(old: old, changes: answer.body, new: new.sections), "q=\(q): \(answer.text)")
        let rows = try answer.json["rows"] as? [String: [Any]]
        let sections = try answer.json["sections"] as? [String: [Any]]
        return (rows?["inserted"]?.count ?? 0, rows?["deleted"]?.count ?? 0, sections?["inserted"]?.count ?? 0)
    }

    func testARecordEnteringOneSearchAndLeavingAnotherMovesBothAndTheOthersFollowTheListsVersion() throws {
        let app = try TestApp(config: Self.config)
        try person(app, "p1", "Anna")
        try person(app, "p2", "Bert")
        try person(app, "p3", "Carl")
        try person(app, "p4", "Bertha")
        let ann0 = try outline(app, "ann"), bert0 = try outline(app, "bert"), carl0 = try outline(app, "carl")
        XCTAssertEqual(ann0.sections.flatMap(\.rows), ["me", "p1"])
        XCTAssertEqual(bert0.sections.flatMap(\.rows), ["me", "p2", "p4"])
        XCTAssertEqual(carl0.sections.flatMap(\.rows), ["me", "p3"])
        let tag0 = try XCTUnwrap(app.get("/v1/lists/people/rows?q=carl").header("ETag"))

        try person(app, "p2", "Annabel")   // enters `ann`, leaves `bert`; `carl` is untouched
        let v1 = try app.version(of: "people")
        let ann1 = try outline(app, "ann"), bert1 = try outline(app, "bert"), carl1 = try outline(app, "carl")
        XCTAssertEqual(ann1.sections.flatMap(\.rows), ["me", "p1", "p2"])
        XCTAssertEqual(bert1.sections.flatMap(\.rows), ["me", "p4"])
        XCTAssertEqual(carl1.sections.flatMap(\.rows), ["me", "p3"])
        for (q, result) in [("ann", ann1), ("bert", bert1), ("carl", carl1)] {
            XCTAssertEqual(result.version, v1, "q=\(q) is served at the list's version")
        }
        XCTAssertEqual(try changes(app, "ann", since: ann0.version, old: ann0.sections, new: ann1).inserted, 1)
        XCTAssertEqual(try changes(app, "bert", since: bert0.version, old: bert0.sections, new: bert1).deleted, 1)
        XCTAssertEqual(try changes(app, "carl", since: carl0.version, old: carl0.sections, new: carl1).inserted, 0)
        let carlPage = try app.get("/v1/lists/people/rows?q=carl")
        let tag1 = try XCTUnwrap(carlPage.header("ETag"))
        XCTAssertNotEqual(tag1, tag0, "the untouched result's tag moves with the version")
        XCTAssertEqual(try app.request("GET", "/v1/lists/people/rows?q=carl", headers: [("If-None-Match", tag0)]).status, 200)
        XCTAssertEqual(try app.request("GET", "/v1/lists/people/rows?q=carl", headers: [("If-None-Match", tag1)]).status, 304)

        try person(app, "p5", "Carla", team: "Sales")   // now `carl` moves, from a version it was only served at
        let carl2 = try outline(app, "carl")
        XCTAssertEqual(carl2.sections.flatMap(\.rows), ["me", "p3", "p5"])
        XCTAssertEqual(carl2.version, try app.version(of: "people"))
        XCTAssertEqual(try changes(app, "carl", since: carl1.version, old: carl1.sections, new: carl2).sectionsInserted, 1,
                       "p5 comes with its new section")
        XCTAssertEqual(try changes(app, "carl", since: carl0.version, old: carl0.sections, new: carl2).sectionsInserted, 1)
        XCTAssertEqual(try outline(app, "ann").sections.flatMap(\.rows), ["me", "p1", "p2"])
        XCTAssertEqual(try outline(app, "bert").version, carl2.version)
    }
}
