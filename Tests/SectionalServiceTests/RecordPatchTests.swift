import Foundation
import ListModel
import TestSupport
import XCTest

/// `PATCH` of a record (JSON Merge Patch) and a batch's `patch`.
final class RecordPatchTests: XCTestCase {
    private func patch(_ app: TestApp, _ id: String, _ json: String, type: String = "application/merge-patch+json",
                       headers: [(String, String)] = []) throws -> HTTPTestClient.Answer {
        try app.client().request("PATCH", "/v1/collections/people/records/\(id)",
                                 headers: [("Content-Type", type)] + headers, body: Array(json.utf8))
    }

    private func record(_ app: TestApp, _ id: String) throws -> [String: Any] {
        try app.get("/v1/collections/people/records/\(id)").expect(200).json
    }

    func testMergePatchSemantics() throws {
        let app = try TestApp()
        try app.put("people", "p1", #"{"name":"Ada","team":"Design","address":{"city":"London","zip":"N1"},"tags":["a","b"],"unread":3}"#).expect(201)
        let answer = try patch(app, "p1", #"{"address":{"city":"Paris","zip":null,"street":"Rue"},"tags":["c"],"unread":null}"#)
        XCTAssertEqual(answer.status, 200, answer.text)
        let merged: [String: Any] = try answer.json.value("record")
        XCTAssertEqual(merged["name"] as? String, "Ada", "members the patch does not name are kept")
        XCTAssertEqual(merged["address"] as? [String: String], ["city": "Paris", "street": "Rue"], "nested objects merge; null removes")
        XCTAssertEqual(merged["tags"] as? [String], ["c"], "arrays are replaced")
        XCTAssertNil(merged["unread"], "null removes a member")
        XCTAssertEqual(try answer.json["id"] as? String, "p1")
        let version: Int = try answer.json.value("version")
        XCTAssertEqual(answer.header("Sectional-Version"), String(version))
        XCTAssertEqual(answer.header("ETag"), "\"\(version)\"")
        let stored = try record(app, "p1")
        XCTAssertEqual(stored["address"] as? [String: String], ["city": "Paris", "street": "Rue"])
        XCTAssertNil(stored["unread"])
        XCTAssertEqual(try app.version(), version)
        XCTAssertEqual(try app.get("/v1/lists/people/rows/p1").json["row"].flatMap { ($0 as? [String: Any])?["title"] as? String }, "Ada")

        // Plain JSON is taken as a merge patch too.
        XCTAssertEqual(try patch(app, "p1", #"{"name":"Ada L."}"#, type: "application/json").status, 200)
        XCTAssertEqual(try record(app, "p1")["name"] as? String, "Ada L.")
    }

    /// A patch names members by code points: "cafe\u0301" (e and a combining acute) neither
    /// overwrites nor removes "caf\u00e9" (a precomposed é), which Swift's `String` calls equal.
    func testAPatchTellsCanonicallyEquivalentNamesApart() throws {
        let app = try TestApp()
        try app.put("people", "r1", #"{"caf\u00e9":"nfc","x":1}"#).expect(201)
        try patch(app, "r1", #"{"cafe\u0301":"nfd"}"#).expect(200)
        var stored = try XCTUnwrap(try JSONParser.parse(app.get("/v1/collections/people/records/r1").expect(200).body).objectValue)
        XCTAssertEqual(stored.keys.map { Array($0.utf8) }, ["id", "caf\u{E9}", "x", "cafe\u{301}"].map { Array($0.utf8) })
        XCTAssertEqual(stored.members.map(\.value), ["r1", "nfc", 1, "nfd"])
        try patch(app, "r1", #"{"cafe\u0301":null}"#).expect(200)
        stored = try XCTUnwrap(try JSONParser.parse(app.get("/v1/collections/people/records/r1").expect(200).body).objectValue)
        XCTAssertEqual(stored.keys.map { Array($0.utf8) }, ["id", "caf\u{E9}", "x"].map { Array($0.utf8) }, "null removes only the member of that name")
    }

    func testPatchOfAMissingRecordAndBadPatches() throws {
        let app = try TestApp()
        XCTAssertEqual(try patch(app, "nobody", #"{"name":"X"}"#).slug, "record-not-found")
        XCTAssertEqual(try patch(app, "nobody", #"{"name":"X"}"#).status, 404)
        XCTAssertEqual(try app.get("/v1/collections/people/records/nobody").slug, "record-not-found", "a patch never creates")
        try app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#).expect(201)
        let version = try app.version()
        let wrongType = try patch(app, "p1", #"{"name":"X"}"#, type: "text/plain")
        XCTAssertEqual(wrongType.slug, "unsupported-media-type")
        XCTAssertEqual(wrongType.header("Accept-Patch"), "application/merge-patch+json, application/json", "RFC 5789 §2.2")
        XCTAssertEqual(try patch(app, "p1", #"["a"]"#).slug, "invalid-json")
        XCTAssertEqual(try patch(app, "p1", #"{"id":"p2"}"#).slug, "invalid-request")
        XCTAssertEqual(try patch(app, "p1", #"{"id":null}"#).slug, "invalid-request", "the id cannot be removed")
        XCTAssertEqual(try patch(app, "bad%20id", "{}").slug, "invalid-name")
        XCTAssertEqual(try app.version(), version, "refused patches change nothing")
        XCTAssertEqual(try record(app, "p1")["name"] as? String, "Ada")
    }

    func testPatchHonoursIfMatchAndTheServiceToken() throws {
        let app = try TestApp(token: "secret")
        let auth = [("Authorization", "Bearer secret")]
        try app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#, headers: auth).expect(201)
        XCTAssertEqual(try patch(app, "p1", #"{"name":"X"}"#).slug, "unauthorized")
        let tag = try XCTUnwrap(try app.get("/v1/collections/people/records/p1").header("ETag"))
        XCTAssertEqual(try patch(app, "p1", #"{"name":"B"}"#, headers: auth + [("If-Match", "\"999999\"")]).status, 412)
        let good = try patch(app, "p1", #"{"name":"B"}"#, headers: auth + [("If-Match", tag)])
        XCTAssertEqual(good.status, 200, good.text)
        XCTAssertEqual(try patch(app, "p1", #"{"name":"C"}"#, headers: auth + [("If-Match", tag)]).status, 412, "the tag is stale now")
        XCTAssertEqual(try patch(app, "nobody", #"{"name":"C"}"#, headers: auth + [("If-Match", "*")]).status, 412)
        XCTAssertEqual(try record(app, "p1")["name"] as? String, "B")
    }

    func testAPatchThatMovesARowToAnotherSectionIsOneMove() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design"), ("p2", "Alan", "Design"), ("p3", "Cy", "Research")])
        let version = try app.version()
        try patch(app, "p1", #"{"team":"Research"}"#).expect(200)
        let changes = try app.get("/v1/lists/people/changes?since=\(version)").json
        let rows: [String: [Any]] = try changes.value("rows")
        XCTAssertEqual(rows["moved"]?.count, 1, "\(rows)")
        XCTAssertEqual(rows.values.reduce(0) { $0 + $1.count }, 1, "one move and nothing else: \(rows)")
        let move = try XCTUnwrap(rows["moved"]?.first as? [String: Any])
        XCTAssertNotEqual((move["from"] as? [String: Int])?["section"], (move["to"] as? [String: Int])?["section"])
    }

    func testBatchPatches() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design"), ("p2", "Alan", "Design")])
        let version = try app.version()
        let missing = try app.request("POST", "/v1/collections/people/batch",
                                      json: #"{"patch":[{"id":"p1","name":"X"},{"id":"nobody","name":"Y"}]}"#)
        XCTAssertEqual(missing.slug, "record-not-found")
        XCTAssertEqual(try app.version(), version, "a batch is atomic")
        XCTAssertEqual(try record(app, "p1")["name"] as? String, "Ada")
        XCTAssertEqual(try app.request("POST", "/v1/collections/people/batch", json: #"{"patch":[{"name":"no id"}]}"#).slug, "invalid-request")

        let answer = try app.request("POST", "/v1/collections/people/batch", json: """
            {"upsert":[{"id":"p3","name":"Cy","team":"T","extra":{"a":1}}],
             "patch":[{"id":"p1","email":null,"team":"Research"},{"id":"p3","extra":{"b":2}},{"id":"p1","name":"Ada L."}],
             "delete":["p2"]}
            """)
        XCTAssertEqual(answer.status, 200, answer.text)
        let written: Int = try answer.json.value("version")
        XCTAssertEqual(answer.header("Sectional-Version"), String(written))
        XCTAssertEqual(try answer.json["upserted"] as? Int, 1)
        XCTAssertEqual(try answer.json["patched"] as? Int, 2)
        XCTAssertEqual(try answer.json["deleted"] as? Int, 1)
        let p1 = try record(app, "p1")
        XCTAssertEqual(p1["name"] as? String, "Ada L.", "patches of one id apply in order")
        XCTAssertEqual(p1["team"] as? String, "Research")
        XCTAssertNil(p1["email"])
        XCTAssertEqual(try record(app, "p3")["extra"] as? [String: Int], ["a": 1, "b": 2], "a patch applies over the batch's own upsert")
        XCTAssertEqual(try app.get("/v1/collections/people/records/p2").status, 404)
        XCTAssertEqual(try app.version(), written)
    }

    /// Concurrent patches of different members of one record: none is lost (each merges into the
    /// record as the one before it left it).
    func testConcurrentPatchesLoseNothing() throws {
        try assertConcurrentPatchesLand(try TestApp())
    }

    func testConcurrentPatchesLoseNothingOnSQLite() throws {
        try assertConcurrentPatchesLand(try TestApp(sqlite: true))
    }

    func testConcurrentPatchesLoseNothingOnPostgres() throws {
        let database = try PostgresTestDatabase(cluster: try PostgresTestDatabase.clusterURL())
        defer { database.drop() }
        try assertConcurrentPatchesLand(try TestApp(postgres: database.url))
    }

    private func assertConcurrentPatchesLand(_ app: TestApp, file: StaticString = #filePath, line: UInt = #line) throws {
        try app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#).expect(201)
        let writers = 16, each = 8
        let failures = Counter()
        let port = app.port
        let done = DispatchGroup()
        for writer in 0..<writers {
            done.enter()
            Thread.detachNewThread {
                for step in 0..<each {
                    let index = writer * each + step
                    let answer = try? HTTPTestClient(port: port).request(
                        "PATCH", "/v1/collections/people/records/p1",
                        headers: [("Content-Type", "application/merge-patch+json")], body: Array("{\"f\(index)\":\(index)}".utf8))
                    if answer?.status != 200 { failures.increment() }
                }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, file: file, line: line)
        XCTAssertEqual(failures.value, 0, file: file, line: line)
        let stored = try record(app, "p1")
        let lost = (0..<writers * each).filter { stored["f\($0)"] as? Int != $0 }
        XCTAssertEqual(lost, [], "patches lost: \(stored)", file: file, line: line)
    }

    func testEveryWriteAnswerCarriesItsVersion() throws {
        let app = try TestApp()
        let put = try app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#)
        XCTAssertEqual(put.header("Sectional-Version"), String(try put.json.value("version", as: Int.self)))
        let batch = try app.request("POST", "/v1/collections/people/batch", json: #"{"upsert":[{"id":"p2","name":"B"}]}"#)
        XCTAssertEqual(batch.header("Sectional-Version"), String(try batch.json.value("version", as: Int.self)))
        XCTAssertGreaterThan(try batch.json.value("version", as: Int.self), try put.json.value("version", as: Int.self))
        let delete = try app.request("DELETE", "/v1/collections/people/records/p1")
        XCTAssertEqual(delete.status, 204)
        XCTAssertEqual(delete.header("Sectional-Version"), String(try app.version()))
    }
}
