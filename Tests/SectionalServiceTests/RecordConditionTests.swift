import Dispatch
import Foundation
import Locking
import TestSupport
import XCTest

/// Records carry a validator (their version) and writes honour `If-Match` / `If-None-Match`.
final class RecordConditionTests: XCTestCase {
    private func put(_ app: TestApp, _ id: String, name: String, _ headers: [(String, String)] = []) throws -> HTTPTestClient.Answer {
        try Self.put(port: app.port, id, name: name, headers)
    }

    /// A PUT on a new connection (callable from several threads at once).
    private static func put(port: Int, _ id: String, name: String, _ headers: [(String, String)] = []) throws -> HTTPTestClient.Answer {
        try HTTPTestClient(port: port).request("PUT", "/v1/collections/people/records/\(id)",
                                               headers: headers + [("Content-Type", "application/json")],
                                               body: Array("{\"name\":\"\(name)\",\"team\":\"Design\"}".utf8))
    }

    func testAConditionalGetAnswers304UntilTheRecordChanges() throws {
        let app = try TestApp()
        let created = try put(app, "p1", name: "Ada").expect(201)
        let tag = try XCTUnwrap(created.header("ETag"))
        let read = try app.get("/v1/collections/people/records/p1").expect(200)
        XCTAssertEqual(read.header("ETag"), tag, "the write's answer gives the version a read shows")
        XCTAssertEqual(try app.request("GET", "/v1/collections/people/records/p1", headers: [("If-None-Match", tag)]).status, 304)
        let changed = try put(app, "p1", name: "Ada L.").expect(200)
        XCTAssertNotEqual(changed.header("ETag"), tag)
        XCTAssertEqual(try app.request("GET", "/v1/collections/people/records/p1", headers: [("If-None-Match", tag)]).status, 200)
    }

    func testOfTwoWritersRacingWithIfMatchExactlyOneWins() throws {
        let app = try TestApp(sqlite: true)
        for round in 0..<10 {
            let tag = try XCTUnwrap(put(app, "p1", name: "start\(round)").header("ETag"))
            let outcomes = Locked<[(name: String, status: Int)]>([])
            let port = app.port
            DispatchQueue.concurrentPerform(iterations: 2) { writer in
                let name = "writer\(writer)-\(round)"
                let status = (try? Self.put(port: port, "p1", name: name, [("If-Match", tag)]).status) ?? -1
                outcomes.withLock { $0.append((name, status)) }
            }
            let all = outcomes.withLock { $0 }
            let winners = all.filter { $0.status == 200 }
            XCTAssertEqual(winners.count, 1, "round \(round): \(all)")
            XCTAssertEqual(all.filter { $0.status == 412 }.count, 1, "round \(round): \(all)")
            let stored = try app.get("/v1/collections/people/records/p1").text
            XCTAssertTrue(stored.contains("\"name\":\"\(winners.first?.name ?? "?")\""), "round \(round): the winner's body is kept: \(stored)")
        }
    }

    func testIfNoneMatchStarCreatesOnlyOnce() throws {
        let app = try TestApp()
        let statuses = Locked<[Int]>([])
        let port = app.port
        DispatchQueue.concurrentPerform(iterations: 6) { writer in
            let status = (try? Self.put(port: port, "only", name: "w\(writer)", [("If-None-Match", "*")]).status) ?? -1
            statuses.withLock { $0.append(status) }
        }
        XCTAssertEqual(statuses.withLock { $0 }.sorted(), [201, 412, 412, 412, 412, 412])
        let refused = try put(app, "only", name: "again", [("If-None-Match", "*")])
        XCTAssertEqual(refused.slug, "precondition-failed")
        XCTAssertEqual(try refused.problem["ids"] as? [String], ["only"])
        // `*` sent among tags is still create-only: the record exists, so no overwrite.
        XCTAssertEqual(try put(app, "only", name: "mixed", [("If-None-Match", #"*, "999""#)]).status, 412)
        XCTAssertEqual(try put(app, "only", name: "mixed", [("If-None-Match", #""999", *"#)]).status, 412)
        XCTAssertFalse(try app.get("/v1/collections/people/records/only").text.contains("mixed"))
    }

    func testIfMatchAndIfNoneMatchTogetherMustBothHold() throws {
        let app = try TestApp()
        XCTAssertEqual(try put(app, "both", name: "first", []).status, 201)
        // The record exists (If-Match holds) but If-None-Match: * does not: 412 (RFC 9110 §13.2.2).
        let refused = try put(app, "both", name: "second", [("If-Match", "*"), ("If-None-Match", "*")])
        XCTAssertEqual(refused.status, 412)
        XCTAssertEqual(try refused.problem["ids"] as? [String], ["both"], "named once")
        let tag = try XCTUnwrap(try app.request("GET", "/v1/collections/people/records/both").header("ETag"))
        XCTAssertEqual(try put(app, "both", name: "third", [("If-Match", tag), ("If-None-Match", "\"999999\"")]).status, 200)
        let now = try XCTUnwrap(try app.request("GET", "/v1/collections/people/records/both").header("ETag"))
        XCTAssertEqual(try put(app, "both", name: "fourth", [("If-Match", "\"0" + now.dropFirst())]).status, 412, "tags compare as sent")
    }

    func testIfMatchOnAMissingOrChangedRecordRefusesAndWritesNothing() throws {
        let app = try TestApp()
        XCTAssertEqual(try put(app, "ghost", name: "G", [("If-Match", "*")]).slug, "precondition-failed", "If-Match: * needs the record")
        XCTAssertEqual(try app.get("/v1/collections/people/records/ghost").status, 404)
        let tag = try XCTUnwrap(put(app, "p1", name: "Ada").header("ETag"))
        try put(app, "p1", name: "Grace").expect(200)
        XCTAssertEqual(try app.request("DELETE", "/v1/collections/people/records/p1", headers: [("If-Match", tag)]).slug, "precondition-failed")
        XCTAssertEqual(try put(app, "p1", name: "Old", [("If-Match", "W/\(tag)")]).slug, "precondition-failed",
                       "a weak tag never matches If-Match")
        XCTAssertTrue(try app.get("/v1/collections/people/records/p1").text.contains("Grace"))
        let current = try XCTUnwrap(app.get("/v1/collections/people/records/p1").header("ETag"))
        // If-Match on two lines is one list (RFC 9110 §5.3): the current tag on the second matches.
        XCTAssertEqual(try app.request("DELETE", "/v1/collections/people/records/p1", headers: [("If-Match", tag), ("If-Match", current)]).status, 204)
    }

    func testABatchWithAnExpectedVersionThatDoesNotHoldWritesNothingAndNamesTheIDs() throws {
        let app = try TestApp()
        let tag = try XCTUnwrap(put(app, "p1", name: "Ada").header("ETag"))
        let version = try XCTUnwrap(Int(tag.dropFirst().dropLast()))
        try put(app, "p2", name: "Bo").expect(201)
        let refused = try app.request("POST", "/v1/collections/people/batch", json: """
            {"upsert":[{"id":"p1","name":"Ada2"},{"id":"p3","name":"Cy"}],"delete":["p2"],
             "expectedVersions":{"p1":\(version),"p2":1,"p3":0,"p9":"*"}}
            """)
        XCTAssertEqual(refused.status, 412)
        XCTAssertEqual(Set(try XCTUnwrap(refused.problem["ids"] as? [String])), ["p2", "p9"], refused.text)
        XCTAssertEqual(try app.get("/v1/collections/people/records/p3").status, 404, "nothing of the batch was written")
        XCTAssertEqual(try app.get("/v1/collections/people/records/p2").status, 200)
        try app.request("POST", "/v1/collections/people/batch", json: """
            {"upsert":[{"id":"p1","name":"Ada2"},{"id":"p3","name":"Cy"}],"expectedVersions":{"p1":\(version),"p3":0}}
            """).expect(200)
        XCTAssertTrue(try app.get("/v1/collections/people/records/p1").text.contains("Ada2"))
        XCTAssertEqual(try app.request("POST", "/v1/collections/people/batch", json: #"{"upsert":[],"expectedVersions":{"p1":"old"}}"#).slug,
                       "invalid-request")
    }
}
