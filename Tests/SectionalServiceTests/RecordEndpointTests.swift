import Foundation
import ListModel
import TestSupport
import XCTest

final class RecordEndpointTests: XCTestCase {
    func testPutGetDeleteAndTheListFollows() throws {
        let app = try TestApp()
        let created = try app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#)
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(try created.json["collection"] as? String, "people")
        XCTAssertEqual(try (created.json["record"] as? [String: Any])?["id"] as? String, "p1", "the path id is stored in the record")
        let version1 = try app.version()
        XCTAssertEqual(try app.put("people", "p1", #"{"id":"p1","name":"Ada L.","team":"Design"}"#).status, 200)
        let outline = try app.get("/v1/lists/people").json
        XCTAssertGreaterThan(try outline.value("version", as: Int.self), version1)
        XCTAssertEqual(try app.get("/v1/lists/people/rows/p1").json["row"].flatMap { ($0 as? [String: Any])?["title"] as? String }, "Ada L.")

        let record = try app.get("/v1/collections/people/records/p1")
        XCTAssertEqual(record.status, 200)
        XCTAssertEqual(try record.json["name"] as? String, "Ada L.")

        XCTAssertEqual(try app.request("DELETE", "/v1/collections/people/records/p1").status, 204)
        XCTAssertEqual(try app.get("/v1/collections/people/records/p1").slug, "record-not-found")
        XCTAssertEqual(try app.request("DELETE", "/v1/collections/people/records/p1").slug, "record-not-found")
        XCTAssertEqual(try app.get("/v1/lists/people/rows/p1").slug, "row-not-found")
    }

    /// Member names are told apart by code points: a body without `"id"` (rebuilt with the id
    /// first) keeps "caf\u00e9" (a precomposed é) and "cafe\u0301" (e and a combining acute), which
    /// Swift's `String` calls equal, as the two members they are.
    func testCanonicallyEquivalentNamesAreTwoMembers() throws {
        let app = try TestApp()
        try app.put("people", "r4", #"{"caf\u00e9":"nfc","cafe\u0301":"nfd"}"#).expect(201)
        let stored = try XCTUnwrap(try JSONParser.parse(app.get("/v1/collections/people/records/r4").expect(200).body).objectValue)
        XCTAssertEqual(stored.keys.map { Array($0.utf8) }, [Array("id".utf8), Array("caf\u{E9}".utf8), Array("cafe\u{301}".utf8)])
        XCTAssertEqual(stored.members.map(\.value), ["r4", "nfc", "nfd"])
    }

    func testBadBodiesAreRefusedAndChangeNothing() throws {
        let app = try TestApp(maxBodyBytes: 4096)
        XCTAssertEqual(try app.put("people", "p1", #"{"id":"p2"}"#).slug, "invalid-request")
        // Not the path's id byte for byte, though Swift's == takes it for it (U+212A KELVIN SIGN
        // and K): it was stored under K with the Kelvin sign in its body, and its row kept that id.
        XCTAssertEqual(try app.put("people", "K", #"{"id":"\u212A"}"#).slug, "invalid-request")
        XCTAssertEqual(try app.request("PATCH", "/v1/collections/people/records/K", json: #"{"id":"\u212A"}"#).status, 400)
        XCTAssertEqual(try app.put("people", "p1", "[1,2]").slug, "invalid-json")
        XCTAssertEqual(try app.put("people", "p1", "{\"a\":").slug, "invalid-json")
        XCTAssertEqual(try app.put("people", "p1", String(repeating: "[", count: 65) + String(repeating: "]", count: 65)).slug, "invalid-json")
        let badUTF8 = try app.client().request("PUT", "/v1/collections/people/records/p1",
                                               headers: [("Content-Type", "application/json")], body: [0x22, 0xC3, 0x28, 0x22])
        XCTAssertEqual(badUTF8.slug, "invalid-json")
        XCTAssertEqual(try app.request("PUT", "/v1/collections/people/records/p1", headers: [("Content-Type", "text/plain")]).slug,
                       "unsupported-media-type")
        let big = try app.put("people", "p1", "{\"x\":\"" + String(repeating: "a", count: 5000) + "\"}")
        XCTAssertEqual(big.status, 413)
        XCTAssertEqual(big.slug, "body-too-large")
        XCTAssertEqual(try app.put("people", "bad%20id", "{}").slug, "invalid-name")
        XCTAssertEqual(try app.put("bad%2Fcollection", "p1", "{}").slug, "invalid-name")
        XCTAssertEqual(try app.get("/v1/collections/people/records/p1").slug, "record-not-found")
        XCTAssertEqual(try app.get("/v1/lists/people").json["version"] as? Int, 0)
        XCTAssertEqual(try app.get("/healthz").status, 200, "the server keeps serving")
    }

    func testListingRecordsByPages() throws {
        let app = try TestApp()
        try app.seed((1...5).map { ("p\($0)", "N\($0)", "T") })
        var ids: [String] = []
        var target = "/v1/collections/people/records?pageSize=2"
        while true {
            let answer = try app.get(target)
            let page = try answer.json
            ids += try page.value("records", as: [[String: Any]].self).map { try $0.value("id", as: String.self) }
            guard let token = page["nextPageToken"] as? String else {
                XCTAssertNil(answer.header("Link"), "no next link on the last page")
                break
            }
            // The walk follows the Link header, which names the same token.
            let link = try XCTUnwrap(answer.header("Link"))
            XCTAssertEqual(link, "</v1/collections/people/records?pageToken=\(token)&pageSize=2>; rel=\"next\"")
            target = String(link.dropFirst().prefix { $0 != ">" })
        }
        XCTAssertEqual(ids, ["p1", "p2", "p3", "p4", "p5"])
        XCTAssertEqual(try app.get("/v1/collections/people/records?pageToken=zzz").slug, "invalid-page-token")
        // A token of this collection whose id is no record id ("people\n\0"): PostgreSQL answered 500.
        XCTAssertEqual(try app.get("/v1/collections/people/records?pageToken=cGVvcGxlCgA").slug, "invalid-page-token")
        XCTAssertEqual(try app.get("/v1/collections/people/records?pageSize=2&pageToken=").text,
                       try app.get("/v1/collections/people/records?pageSize=2").text, "an empty token is the first page")
        XCTAssertEqual(try app.get("/v1/collections/people/records?pageSize=x").slug, "invalid-page-size")
    }

    func testBatchIsAtomic() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design"), ("p2", "Alan", "Design")])
        let version = try app.version()
        let bad = try app.request("POST", "/v1/collections/people/batch",
                                  json: #"{"upsert":[{"id":"p3","name":"Ok"},{"name":"no id"}],"delete":["p1"]}"#)
        XCTAssertEqual(bad.slug, "invalid-request")
        XCTAssertEqual(try app.get("/v1/lists/people").json["version"] as? Int, version)
        XCTAssertEqual(try app.get("/v1/collections/people/records/p3").status, 404)
        XCTAssertEqual(try app.get("/v1/collections/people/records/p1").status, 200)

        let good = try app.request("POST", "/v1/collections/people/batch",
                                   json: #"{"upsert":[{"id":"p3","name":"Cy","team":"Design"}],"delete":["p1","missing"]}"#)
        XCTAssertEqual(good.status, 200)
        XCTAssertEqual(good.text, #"{"upserted":1,"patched":0,"deleted":1,"version":\#(try app.version())}"#)
        XCTAssertEqual(try app.get("/v1/lists/people").json["totalRowCount"] as? Int, 3)

        let tooMany = "{\"delete\":[" + Array(repeating: "\"x\"", count: 10_001).joined(separator: ",") + "]}"
        let answer = try app.request("POST", "/v1/collections/people/batch", json: tooMany)
        XCTAssertEqual(answer.slug, "invalid-request")
        XCTAssertEqual(try app.request("POST", "/v1/collections/people/batch", json: #"{"upsert":{}}"#).slug, "invalid-request")
        // Each expected version is looked up while no write can commit: as many as its operations.
        let expected = "{\"expectedVersions\":{" + (0...10_000).map { "\"x\($0)\":0" }.joined(separator: ",") + "}}"
        let manyExpected = try app.request("POST", "/v1/collections/people/batch", json: expected)
        XCTAssertEqual(manyExpected.slug, "invalid-request")
        XCTAssertTrue(manyExpected.text.contains("at most 10000"), manyExpected.text)
        XCTAssertEqual(try app.request("POST", "/v1/collections/people/batch", json: #"{"remove":[]}"#).slug, "invalid-request")
    }

    func testWritesNeedTheTokenWhenOneIsConfigured() throws {
        let app = try TestApp(token: "s3cret")
        let refused = try app.put("people", "p1", #"{"name":"Ada"}"#)
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(refused.slug, "unauthorized")
        XCTAssertEqual(refused.header("WWW-Authenticate"), "Bearer realm=\"sectional\"")
        XCTAssertEqual(try app.put("people", "p1", "{}", headers: [("Authorization", "Bearer wrong")]).status, 401)
        XCTAssertEqual(try app.put("people", "p1", #"{"name":"Ada"}"#, headers: [("Authorization", "Bearer s3cret")]).status, 201)
        XCTAssertEqual(try app.request("DELETE", "/v1/collections/people/records/p1").status, 401)
        XCTAssertEqual(try app.request("POST", "/v1/collections/people/batch", json: "{}").status, 401)
        XCTAssertEqual(try app.get("/v1/collections/people/records/p1").status, 200, "reads are open")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views").status, 201, "views are open")
    }

    func testATokenFollowedByANulByteAndMoreIsNotTheToken() throws {
        let app = try TestApp(token: "s3cret")
        let body = #"{"name":"Ada"}"#
        let client = try app.client()
        try client.send("PUT /v1/collections/people/records/p1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\0junk\r\n"
                        + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        let answer = try client.readAnswer()
        XCTAssertTrue([400, 401].contains(answer.status), "status \(answer.status)")
        XCTAssertEqual(try app.get("/v1/collections/people/records/p1").status, 404, "nothing was written")
    }

    func testAWriteWithoutTheTokenIsRefusedBefore100Continue() throws {
        let app = try TestApp(token: "s3cret")
        let body = #"{"name":"Ada"}"#
        let head = "PUT /v1/collections/people/records/p1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "Expect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n"
        let refused = try app.client()
        try refused.send(head + "\r\n")
        let text = try refused.readUntil("\r\n\r\n")
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 401 "), "401 without 100 Continue first: \(text)")
        XCTAssertTrue(text.contains("\r\nVary: Accept-Encoding"), "the headers of every other problem answer: \(text)")

        let allowed = try app.client()
        try allowed.send(head + "Authorization: Bearer s3cret\r\n\r\n")
        XCTAssertTrue(try allowed.readUntil("\r\n\r\n").hasPrefix("HTTP/1.1 100 Continue"))
        try allowed.send(body)
        XCTAssertEqual(try allowed.readAnswer().status, 201)
    }

    func testRecordsSurviveARestart() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var version = 0
        do {
            let app = try TestApp(folder: folder, sqlite: true)
            try app.seed([("p1", "Ada", "Design"), ("p2", "Alan", "Engineering")])
            XCTAssertEqual(try app.request("DELETE", "/v1/collections/people/records/p2").status, 204)
            version = try app.version()
            app.server.stop()
        }
        let app = try TestApp(folder: folder, sqlite: true)
        let outline = try app.get("/v1/lists/people").json
        XCTAssertEqual(outline["version"] as? Int, version, "versions come back from the store")
        XCTAssertEqual(outline["totalRowCount"] as? Int, 2)
        XCTAssertEqual(try app.get("/v1/collections/people/records/p1").json["name"] as? String, "Ada")
    }

    /// Batches large enough for the list's edit to be made while SQLite commits them (upserts
    /// only; one with deletes goes the ordinary way): rows move between teams, names change, and
    /// every step's `changes` lead from the version before to the new outline; a server started
    /// afterwards on the same file, which builds the list from the records, answers every page
    /// byte for byte alike.
    func testLargeBatchesMoveTheListAsARestartedServerBuildsIt() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let teams = ["Design", "Sales", "Support", "Research"]  // none hidden: every row is on a page
        var pages: [String] = []
        do {
            let app = try TestApp(folder: folder, sqlite: true)
            var before = try walkPages { token in
                try app.get("/v1/lists/people/rows?pageSize=500" + (token.map { "&pageToken=\($0)" } ?? "")).expect(200).json
            }
            for round in 0..<5 {
                let upserts = (0..<300).map { k -> String in
                    let id = (k * 7 + round * 31) % 400
                    return #"{"id":"b\#(id)","name":"N\#((k * 13 + round) % 50)","team":"\#(teams[(k + round) % teams.count])"}"#
                }
                let deletes = round == 3 ? #","delete":["b1","b2","b3","missing"]"# : ""
                let answer = try app.request("POST", "/v1/collections/people/batch", json: #"{"upsert":[\#(upserts.joined(separator: ","))]\#(deletes)}"#)
                XCTAssertEqual(answer.status, 200, answer.text)
                let after = try walkPages { token in
                    try app.get("/v1/lists/people/rows?pageSize=500" + (token.map { "&pageToken=\($0)" } ?? "")).expect(200).json
                }
                XCTAssertEqual(after.version, Int(answer.header("Sectional-Version") ?? ""), "round \(round)")
                XCTAssertNotEqual(after.sections.map(\.rows), before.sections.map(\.rows), "round \(round) moved rows")
                let changes = try app.get("/v1/lists/people/changes?since=\(before.version)").expect(200)
                XCTAssertNoThrow(try ChangesApplier.apply(old: before.sections, changes: changes.body, new: after.sections),
                                 "round \(round): \(changes.text)")
                before = after
            }
            XCTAssertEqual(before.sections.count, 5)
            pages = try (0..<5).map { try app.get("/v1/lists/people/sections/\($0)/rows?count=400").expect(200).text }
            app.server.stop()
        }
        let restarted = try TestApp(folder: folder, sqlite: true)
        let again = try (0..<5).map { try restarted.get("/v1/lists/people/sections/\($0)/rows?count=400").expect(200).text }
        XCTAssertEqual(again, pages)
    }
}
