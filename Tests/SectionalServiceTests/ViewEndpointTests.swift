import Foundation
@testable import ListStore
import Locking
import TestSupport
import XCTest

final class ViewEndpointTests: XCTestCase {
    func testCreateReadHideToggleDelete() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design"), ("p2", "Alan", "Engineering")])
        let created = try app.request("POST", "/v1/lists/people/views")
        XCTAssertEqual(created.status, 201)
        let id = try XCTUnwrap(try created.json["view"] as? String)
        XCTAssertGreaterThanOrEqual(id.count, 21, "at least 122 random bits in base64url")
        XCTAssertEqual(created.header("Location"), "/v1/lists/people/views/\(id)")
        // A public list takes no user: its views' Location names none.
        let ignored = try app.request("POST", "/v1/lists/people/views?user=bob", json: "{}").expect(201)
        XCTAssertEqual(ignored.header("Location"), "/v1/lists/people/views/\(try ignored.json.value("view", as: String.self))")
        XCTAssertEqual(try created.json["hidden"] as? [String], ["Archived"], "a new view starts from the default")

        let hide = try app.request("PUT", "/v1/lists/people/views/\(id)/sections/1", json: #"{"hidden":true}"#)
        XCTAssertEqual(hide.status, 200, hide.text)
        let section = try hide.json["section"] as? [String: Any]
        XCTAssertEqual(section?["key"] as? String, "Design")
        XCTAssertEqual(section?["hidden"] as? Bool, true)
        XCTAssertEqual(section?["rowCount"] as? Int, 0)
        XCTAssertEqual(section?["totalRowCount"] as? Int, 1)

        let outline = try app.get("/v1/lists/people?view=\(id)").json
        XCTAssertEqual(outline["rowCount"] as? Int, 2, "pinned + Engineering")
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").json["hidden"] as? [String], ["Archived", "Design"])

        let toggled = try app.request("POST", "/v1/lists/people/views/\(id)/sections/1/toggle")
        XCTAssertEqual(try (toggled.json["section"] as? [String: Any])?["hidden"] as? Bool, false)
        XCTAssertEqual(try app.get("/v1/lists/people?view=\(id)").json["rowCount"] as? Int, 3)

        XCTAssertEqual(try app.request("DELETE", "/v1/lists/people/views/\(id)").status, 204)
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").slug, "view-not-found")
        XCTAssertEqual(try app.request("DELETE", "/v1/lists/people/views/\(id)").slug, "view-not-found")
    }

    /// Answers with no `ETag` take `If-Match: *` only (RFC 9110 §13.1.1): a view read, made,
    /// changed or deleted, a batch, the list index and a record listing with a tag named are
    /// `412` and change nothing. They were made, the condition ignored.
    func testAnIfMatchNamingATagHoldsNowhereThereIsNoTag() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let id = try app.createView(#"{"hidden":[]}"#)
        let tagged = [("If-Match", #""nope""#)]
        for (method, target, body) in [("GET", "/v1/lists/people/views/\(id)", nil), ("PUT", "/v1/lists/people/views/\(id)/sections/1", #"{"hidden":true}"#),
                                        ("POST", "/v1/lists/people/views/\(id)/sections/1/toggle", nil), ("DELETE", "/v1/lists/people/views/\(id)", nil),
                                        ("POST", "/v1/lists/people/views", nil), ("GET", "/v1/lists", nil), ("GET", "/v1/collections/people/records", nil),
                                        ("POST", "/v1/collections/people/batch", #"{"delete":["p1"]}"#)] as [(String, String, String?)] {
            let answer = try app.request(method, target, json: body, headers: tagged)
            XCTAssertEqual(answer.status, 412, "\(method) \(target): \(answer.text)")
            XCTAssertEqual(answer.slug, "precondition-failed", "\(method) \(target)")
        }
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").json["hidden"] as? [String], [], "the view unchanged")
        XCTAssertEqual(try app.get("/v1/collections/people/records/p1").status, 200, "the record still there")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views/\(id)/sections/1/toggle", headers: [("If-Match", "*")]).status, 200)
        XCTAssertEqual(try app.request("DELETE", "/v1/lists/people/views/\(id)", headers: [("If-Match", "*")]).status, 204)
        // A condition applies only to what would be a 2xx: a view or a section that is not there
        // is 404 whatever it says (it was 412).
        let other = try app.createView(#"{"hidden":[]}"#)
        for (method, target, body, slug) in [("GET", "/v1/lists/people/views/\(id)", nil, "view-not-found"),
                                             ("DELETE", "/v1/lists/people/views/\(id)", nil, "view-not-found"),
                                             ("POST", "/v1/lists/people/views/\(id)/sections/1/toggle", nil, "view-not-found"),
                                             ("PUT", "/v1/lists/people/views/\(other)/sections/99", #"{"hidden":true}"#, "section-not-found")]
            as [(String, String, String?, String)] {
            let answer = try app.request(method, target, json: body, headers: tagged)
            XCTAssertEqual(answer.status, 404, "\(method) \(target): \(answer.text)")
            XCTAssertEqual(answer.slug, slug, "\(method) \(target)")
        }
    }

    /// A change that names the section's key is made only while the index is still that section:
    /// a client whose copy of the list is behind gets `412` and the list's version, and the view
    /// is left as it was (no wrong section hidden that it would have to show again).
    func testASectionChangeNamingItsKeyIsMadeOnlyWhileTheIndexIsThatSection() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design"), ("p2", "Alan", "Engineering")])
        let id = try app.createView(#"{"hidden":[]}"#)
        let hide = try app.request("PUT", "/v1/lists/people/views/\(id)/sections/1", json: #"{"hidden":true,"key":"Design"}"#)
        XCTAssertEqual(hide.status, 200, hide.text)
        XCTAssertEqual(try (hide.json["section"] as? [String: Any])?["key"] as? String, "Design")
        try app.seed([("p0", "Bo", "Accounts")])  // sorts first: section 1 is Accounts now
        let version = try app.version()
        let moved = try app.request("PUT", "/v1/lists/people/views/\(id)/sections/1", json: #"{"key":"Design","hidden":false}"#)
        XCTAssertEqual(moved.status, 412)
        XCTAssertEqual(moved.text, #"{"type":"/problems/precondition-failed","title":"Precondition failed","status":412,"#
                       + #""detail":"Section 1 is 'Accounts' now, not 'Design': the list has moved on.","version":\#(version)}"#)
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").json["hidden"] as? [String], ["Design"], "the view is as it was")
        XCTAssertEqual(try app.request("PUT", "/v1/lists/people/views/\(id)/sections/2", json: #"{"hidden":false,"key":"Design"}"#).status, 200)
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").json["hidden"] as? [String], [])
        XCTAssertEqual(try app.request("PUT", "/v1/lists/people/views/\(id)/sections/0", json: #"{"hidden":true,"key":7}"#).slug, "invalid-request")
    }

    /// The key a change names is compared by code points, as section keys are told apart: "Café"
    /// with a precomposed é is not the section "Cafe\u{301}" (e and a combining acute) at the index.
    func testASectionChangeComparesTheKeyByCodePoints() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Caf\u{e9}"), ("p2", "Bo", "Cafe\u{301}")])  // sections 1 and 2, e before \u{e9}
        let id = try app.createView(#"{"hidden":[]}"#)
        let wrong = try app.request("PUT", "/v1/lists/people/views/\(id)/sections/1", json: #"{"hidden":true,"key":"Caf\u00e9"}"#)
        XCTAssertEqual(wrong.status, 412, wrong.text)
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").json["hidden"] as? [String], [], "nothing hidden")
        let right = try app.request("PUT", "/v1/lists/people/views/\(id)/sections/2", json: #"{"hidden":true,"key":"Caf\u00e9"}"#)
        XCTAssertEqual(right.status, 200, right.text)
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").json["hidden"] as? [String], ["Caf\u{e9}"])
    }

    func testViewErrors() throws {
        let app = try TestApp()
        let id = try app.createView(#"{"hidden":["pinned"]}"#)
        XCTAssertEqual(try app.request("PUT", "/v1/lists/people/views/\(id)/sections/0", json: #"{"hidden":"yes"}"#).slug, "invalid-request")
        XCTAssertEqual(try app.request("PUT", "/v1/lists/people/views/\(id)/sections/0", json: #"{"hidden":true,"x":1}"#).slug, "invalid-request")
        XCTAssertEqual(try app.request("PUT", "/v1/lists/people/views/\(id)/sections/0", json: "true").slug, "invalid-json")
        XCTAssertEqual(try app.request("PUT", "/v1/lists/people/views/\(id)/sections/0").slug, "unsupported-media-type")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views/\(id)/sections/7/toggle").slug, "section-not-found")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views/\(id)/sections/one/toggle").slug, "invalid-request")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views/nope/sections/0/toggle").slug, "view-not-found")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views", json: #"{"hidden":[1]}"#).slug, "invalid-request")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views", json: #"{"shown":[]}"#).slug, "invalid-request")
        XCTAssertEqual(try app.request("POST", "/v1/lists/nothing/views").slug, "list-not-found")
        XCTAssertEqual(try app.request("PUT", "/v1/lists/nothing/views/\(id)/sections/0", json: "{}").slug, "list-not-found",
                       "the list first, then the body")
    }

    /// A view id is matched byte for byte: one with U+212A KELVIN SIGN where the view's has `K`
    /// (equal as Swift strings) is no view. It was found in memory, then missed by the store's
    /// delete: the answer said deleted, the view was gone from memory and back after a restart.
    func testAViewIdWithACanonicallyEquivalentSpellingIsNoView() throws {
        let app = try TestApp(sqlite: true)
        var id = ""
        for _ in 0..<100 where !id.contains("K") { id = try app.createView() }
        XCTAssertTrue(id.contains("K"), "a view id with a K (29% of them)")
        let kelvin = id.replacingOccurrences(of: "K", with: "%E2%84%AA")
        XCTAssertEqual(try app.request("DELETE", "/v1/lists/people/views/\(kelvin)").slug, "view-not-found")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views/\(kelvin)/sections/0/toggle").slug, "view-not-found")
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").status, 200, "the view itself is still there")
        XCTAssertEqual(try app.get("/v1/lists/people?view=%00").slug, "view-not-found")
    }

    func testViewsSurviveARestart() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var id = ""
        do {
            let app = try TestApp(folder: folder, sqlite: true)
            try app.seed([("p1", "Old Timer", "Archived")])
            id = try app.createView(#"{"hidden":["pinned"]}"#)
            try app.request("POST", "/v1/lists/people/views/\(id)/sections/1/toggle").expect(200)
            app.server.stop()
        }
        let app = try TestApp(folder: folder, sqlite: true)
        let view = try app.get("/v1/lists/people/views/\(id)")
        XCTAssertEqual(view.status, 200)
        XCTAssertEqual(Set(try view.json.value("hidden", as: [String].self)), ["pinned", "Archived"], "Archived (section 1) was toggled to hidden")
    }

    /// One request on its own connection, from any thread: its status, 0 when it failed.
    private static func status(_ port: Int, _ method: String, _ target: String, json: String? = nil) -> Int {
        let headers = json == nil ? [] : [("Content-Type", "application/json")]
        return (try? HTTPTestClient(port: port).request(method, target, headers: headers, body: json.map { Array($0.utf8) }))?.status ?? 0
    }

    /// Six teams, so six sections (1...6) after the pinned one.
    private func seedSixTeams(_ app: TestApp) throws {
        try app.seed((1...6).map { ("p\($0)", "Person \($0)", "Team\($0)") })
    }

    func testParallelSectionChangesAreAllKept() throws {
        let app = try TestApp(sqlite: true)
        try seedSixTeams(app)
        let port = app.port
        for round in 0..<8 {
            let id = try app.createView(#"{"hidden":[]}"#)
            let statuses = Locked<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 6) { i in
                let status = Self.status(port, "PUT", "/v1/lists/people/views/\(id)/sections/\(i + 1)", json: #"{"hidden":true}"#)
                statuses.withLock { $0.append(status) }
            }
            XCTAssertEqual(statuses.withLock { $0 }, Array(repeating: 200, count: 6))
            let hidden: [String] = try app.get("/v1/lists/people/views/\(id)").json.value("hidden")
            XCTAssertEqual(Set(hidden), Set((1...6).map { "Team\($0)" }), "round \(round): no change lost")
        }
    }

    func testADeleteRacingTogglesStaysDeletedAlsoAfterARestart() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var deleted: [String] = []
        do {
            let app = try TestApp(folder: folder, sqlite: true)
            try seedSixTeams(app)
            let port = app.port
            for _ in 0..<12 {
                let id = try app.createView()
                let deleteStatus = Locked(0)
                DispatchQueue.concurrentPerform(iterations: 7) { i in
                    if i == 3 {
                        let status = Self.status(port, "DELETE", "/v1/lists/people/views/\(id)")
                        deleteStatus.withLock { $0 = status }
                    } else {
                        _ = Self.status(port, "POST", "/v1/lists/people/views/\(id)/sections/\(i % 6 + 1)/toggle")
                    }
                }
                XCTAssertEqual(deleteStatus.withLock { $0 }, 204)
                XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").slug, "view-not-found", "a 204 delete is final")
                deleted.append(id)
            }
            app.server.stop()
        }
        let app = try TestApp(folder: folder, sqlite: true)
        for id in deleted {
            XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").slug, "view-not-found", "not resurrected by a restart")
        }
        XCTAssertEqual(try app.metric("sectional_views"), 0)
    }

    func testAViewHidesAtMost1024Keys() throws {
        let app = try TestApp()
        let keys = (0...1_024).map { "\"k\($0)\"" }
        let tooMany = try app.request("POST", "/v1/lists/people/views", json: "{\"hidden\":[\(keys.joined(separator: ","))]}")
        XCTAssertEqual(tooMany.status, 400)
        XCTAssertEqual(tooMany.slug, "invalid-request")
        XCTAssertTrue(tooMany.text.contains("1024"), tooMany.text)
        XCTAssertEqual(try app.metric("sectional_views"), 0, "nothing was kept")
        let most = try app.request("POST", "/v1/lists/people/views", json: "{\"hidden\":[\(keys.dropLast().joined(separator: ","))]}")
        XCTAssertEqual(most.status, 201, most.text)
        let id: String = try most.json.value("view")
        let another = try app.request("PUT", "/v1/lists/people/views/\(id)/sections/0", json: #"{"hidden":true}"#)
        XCTAssertEqual(another.slug, "invalid-request", "hiding a 1025th key is refused too")
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").json.value("hidden", as: [String].self).count, 1_024)

        let long = String(repeating: "x", count: 1_000)
        let heavy = (0..<66).map { "\"\($0)\(long)\"" }.joined(separator: ",")
        let tooLarge = try app.request("POST", "/v1/lists/people/views", json: "{\"hidden\":[\(heavy)]}")
        XCTAssertEqual(tooLarge.slug, "invalid-request", "66 keys of 1 KB pass 64 KiB in all")
    }

    func testViewsAreBoundedByMaxViewsAndCounted() throws {
        let config = TestApp.teamsConfig.replacingOccurrences(of: "\"lists\": {", with: "\"views\": {\"maxViews\": 2}, \"lists\": {")
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var ids: [String] = []
        do {
            let app = try TestApp(config: config, folder: folder, sqlite: true)
            for _ in 0..<2 { ids.append(try app.createView()) }
            XCTAssertEqual(try app.get("/v1/lists/people?view=\(ids[0])").status, 200, "view 0 is used after view 1")
            ids.append(try app.createView())
            XCTAssertEqual(try app.get("/v1/lists/people/views/\(ids[1])").slug, "view-not-found", "the least recently used went")
            XCTAssertEqual(try app.get("/v1/lists/people/views/\(ids[0])").status, 200)
            let metrics = try app.get("/metrics").text
            XCTAssertEqual(metricValue(metrics, "sectional_views"), 2, metrics)
            XCTAssertEqual(metricValue(metrics, "sectional_views_evicted_total"), 1, metrics)
            app.server.stop()
        }
        let app = try TestApp(config: config, folder: folder, sqlite: true)
        XCTAssertEqual(try app.metric("sectional_views"), 2, "the evicted view left the store too")
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(ids[1])").slug, "view-not-found")
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(ids[2])").status, 200)
    }

    /// Past `maxViews` × 256 bytes of keys (below 64 KiB when `maxViews` is below 256) a view
    /// would weigh more than the whole bound: its create is `400 invalid-request`, as one past
    /// 64 KiB, and the views there were stay.
    func testAViewHeavierThanMaxViewsIsRefusedAndEvictsNoOther() throws {
        let config = TestApp.teamsConfig.replacingOccurrences(of: "\"lists\": {", with: "\"views\": {\"maxViews\": 10}, \"lists\": {")
        let app = try TestApp(config: config)
        let kept = try app.createView()
        let keys = (0..<10).map { "\"\($0)" + String(repeating: "k", count: 255) + "\"" }   // 2,560 bytes: weighs 10
        let tooHeavy = try app.request("POST", "/v1/lists/people/views", json: "{\"hidden\":[\(keys.joined(separator: ",")),\"x\"]}")
        XCTAssertEqual(tooHeavy.status, 400, String(tooHeavy.text.prefix(200)))
        XCTAssertEqual(tooHeavy.slug, "invalid-request")
        XCTAssertTrue(tooHeavy.text.contains("2560 bytes"), String(tooHeavy.text.prefix(200)))
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(kept)").status, 200, "no other view was evicted")
        XCTAssertEqual(try app.metric("sectional_views_evicted_total"), 0)
        let heaviest = try app.request("POST", "/v1/lists/people/views", json: "{\"hidden\":[\(keys.joined(separator: ","))]}")
        XCTAssertEqual(heaviest.status, 201, String(heaviest.text.prefix(200)))
        let location = try XCTUnwrap(heaviest.header("Location"))
        XCTAssertEqual(try app.get(location).status, 200, "the view a 201 names exists")
    }


    /// store's write lock held elsewhere, more view writes than the server has threads leave it
    /// answering other requests; they are all answered once the lock is let go.
    func testViewWritesWaitingForABusyStoreHoldNoServerThread() throws {
        let app = try TestApp(sqlite: true)
        try app.seed([("p1", "Ada", "Design")])
        let (view, kept) = (try app.createView(), try app.createView())
        let other = try SQLiteConnection(path: app.folder.appendingPathComponent("test.sqlite").path)
        defer { other.close() }
        try other.run("BEGIN IMMEDIATE")
        let writes = ["POST /v1/lists/people/views", "DELETE /v1/lists/people/views/\(view)",
                      "POST /v1/lists/people/views/\(kept)/sections/0/toggle", "POST /v1/lists/people/views",
                      "POST /v1/lists/people/views"]   // more than the server's 4 threads
        let waiting = try writes.map { line in
            let client = try app.client()
            try client.send("\(line) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            return client
        }
        XCTAssertEqual(try app.get("/v1/lists/people/rows").status, 200, "a read is answered meanwhile")
        XCTAssertEqual(try app.get("/healthz").status, 200)
        XCTAssertFalse(waiting.contains { $0.hasSomethingToRead() }, "the view writes still wait for the store")
        try other.run("ROLLBACK")
        XCTAssertEqual(try waiting.map { try $0.readAnswer().status }, [201, 204, 200, 201, 201])
    }
}
