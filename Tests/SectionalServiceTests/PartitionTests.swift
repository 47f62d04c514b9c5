import Foundation
import TestSupport
import XCTest

/// Per-user lists: each user sees their own partition, a write moves only the partitions it
/// changes, and nothing of one user's partition (tokens, views, tags) works for another.
final class PartitionTests: XCTestCase {
    func testEachUserSeesOnlyTheirOwnRecordsAndTheLiteralSections() throws {
        for sqlite in [false, true] {
            let p = try PartitionApp(sqlite: sqlite)
            for id in ["a1", "a2", "a3"] { try p.order(id, owner: "alice") }
            for id in ["b1", "b2"] { try p.order(id, owner: "bob", status: "shipped") }
            try p.order("x1", owner: nil)
            XCTAssertEqual(try p.rowIDs(of: "alice"), ["contact", "a1", "a2", "a3"], "sqlite: \(sqlite)")
            XCTAssertEqual(try p.rowIDs(of: "bob"), ["contact", "b1", "b2"], "sqlite: \(sqlite)")
            XCTAssertEqual(try p.rowIDs(of: "carol"), ["contact"], "a user with no records sees the literal sections")
            let all = try p.app.get("/v1/lists/all/rows?pageSize=500").json
            let sections: [[String: Any]] = try all.value("sections")
            let rows: [[String: Any]] = try sections[0].value("rows")
            XCTAssertEqual(rows.count, 6, "a list that is the same for everyone still sees every record")
        }
    }

    func testReadsNeedATokenAndTheServiceTokenNamesTheUser() throws {
        let p = try PartitionApp()
        let anonymous = try p.app.get("/v1/lists/orders")
        XCTAssertEqual(anonymous.status, 401)
        XCTAssertEqual(anonymous.slug, "unauthorized")
        let challenge = try XCTUnwrap(anonymous.header("WWW-Authenticate"))
        XCTAssertTrue(challenge.hasPrefix("Bearer"), challenge)
        XCTAssertFalse(challenge.contains("error="), "a missing token is not an invalid one: \(challenge)")
        let wrong = try p.app.request("GET", "/v1/lists/orders?user=alice", headers: [("Authorization", "Bearer nope")])
        XCTAssertEqual(wrong.status, 401)
        XCTAssertEqual(wrong.header("WWW-Authenticate"), #"Bearer error="invalid_token""#)
        XCTAssertEqual(try p.app.request("GET", "/v1/lists/orders", headers: p.service).slug, "invalid-request",
                       "the service token must say whose partition it reads")
        XCTAssertEqual(try p.app.get("/v1/lists/all").status, 200, "public lists need no token")
        let index = try p.app.get("/v1/lists").json
        let names: [[String: Any]] = try index.value("lists")
        XCTAssertEqual(try names.map { try $0.value("name", as: String.self) }, ["all"], "anonymous callers see only public lists")
        let serviceIndex = try p.app.request("GET", "/v1/lists?user=alice", headers: p.service).json
        let serviceNames: [[String: Any]] = try serviceIndex.value("lists")
        XCTAssertEqual(try serviceNames.map { try $0.value("name", as: String.self) }, ["orders", "all"])
        XCTAssertEqual(try p.app.request("GET", "/v1/lists?user=", headers: p.service).slug, "invalid-request",
                       "as on every read of the list (it showed a partition of the user \"\")")
    }

    func testAWriteMovesOnlyThePartitionsItChanges() throws {
        let p = try PartitionApp(sqlite: true)
        try p.order("a1", owner: "alice")
        try p.order("b1", owner: "bob")
        let bobVersion = try p.version(of: "bob")
        let bobTag = try XCTUnwrap(p.get("/v1/lists/orders/rows", as: "bob").header("ETag"))
        let aliceTag = try XCTUnwrap(p.get("/v1/lists/orders/rows", as: "alice").header("ETag"))
        XCTAssertNotEqual(bobTag, aliceTag, "two users' answers never share an entity tag")

        try p.order("a2", owner: "alice")
        XCTAssertEqual(try p.version(of: "bob"), bobVersion, "alice's write leaves bob's version")
        XCTAssertEqual(try p.get("/v1/lists/orders/rows", as: "bob", headers: [("If-None-Match", bobTag)]).status, 304)
        XCTAssertEqual(try p.get("/v1/lists/orders/rows", as: "alice", headers: [("If-None-Match", aliceTag)]).status, 200)

        // A record moving from alice to bob moves both.
        let aliceBefore = try p.version(of: "alice")
        try p.order("a1", owner: "bob")
        XCTAssertGreaterThan(try p.version(of: "alice"), aliceBefore)
        XCTAssertGreaterThan(try p.version(of: "bob"), bobVersion)
        XCTAssertEqual(try p.rowIDs(of: "alice"), ["contact", "a2"])
        XCTAssertEqual(try p.rowIDs(of: "bob"), ["contact", "a1", "b1"])
        let changes = try p.get("/v1/lists/orders/changes?since=\(aliceBefore)", as: "alice").json
        XCTAssertEqual(changes["reload"] as? Bool, false)
        let rows: [String: Any] = try changes.value("rows")
        let deleted: [Any] = try rows.value("deleted")
        XCTAssertEqual(deleted.count, 1, "alice's diff deletes the row that left: \(changes)")

        // A delete moves only its owner's partition.
        let bobNow = try p.version(of: "bob")
        try p.delete("a2")
        XCTAssertEqual(try p.version(of: "bob"), bobNow)
        XCTAssertEqual(try p.rowIDs(of: "alice"), ["contact"])
    }

    /// What the docs say of a write that leaves a record as it was (an empty `PATCH`, a `PUT` of
    /// the record as stored): it moves the record's and its partition's version and wakes the
    /// partition's stream, with an empty `changes`; other partitions stay.
    func testAWriteThatChangesNothingStillMovesTheVersionsOfWhatItWrites() throws {
        let p = try PartitionApp()
        try p.order("a1", owner: "alice")
        try p.order("b1", owner: "bob")
        let bobVersion = try p.version(of: "bob")
        let client = try HTTPTestClient(port: p.app.port, timeoutSeconds: 5)
        try client.send("GET /v1/lists/orders/events?user=alice HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(PartitionApp.serviceToken)\r\n\r\n")
        let before = try p.version(of: "alice")
        _ = try client.readUntil("\"version\":\(before)}")

        let recordVersion = try p.order("a1", owner: "alice")
        XCTAssertGreaterThan(recordVersion, Int64(before), "a PUT of the record as stored is a write")
        let patch = try p.app.request("PATCH", "/v1/collections/orders/records/a1", json: "{}", headers: p.service).expect(200...200)
        let patched = try XCTUnwrap(Int(try XCTUnwrap(patch.header("ETag")).dropFirst().dropLast()))
        XCTAssertGreaterThan(patched, Int(recordVersion), "an empty PATCH moves the record's version")
        XCTAssertEqual(try p.version(of: "alice"), patched, "and its partition's")
        XCTAssertTrue(try client.readUntil("\"version\":\(patched)}").contains("\"list\":\"orders\""), "and alice's stream hears it")
        XCTAssertEqual(try p.version(of: "bob"), bobVersion, "bob's partition is not written")
        let changes = try p.get("/v1/lists/orders/changes?since=\(before)", as: "alice").json
        XCTAssertEqual(changes["reload"] as? Bool, false)
        let rows: [String: [Any]] = try changes.value("rows")
        XCTAssertEqual(rows.values.map(\.count).reduce(0, +), 0, "nothing changed: \(changes)")
    }

    func testEventsWakeOnlyTheStreamsOfThePartitionWritten() throws {
        let p = try PartitionApp()
        try p.order("a1", owner: "alice")
        try p.order("b1", owner: "bob")
        func stream(_ user: String) throws -> HTTPTestClient {
            let client = try HTTPTestClient(port: p.app.port, timeoutSeconds: 5)
            try client.send("GET /v1/lists/orders/events?user=\(user) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(PartitionApp.serviceToken)\r\n\r\n")
            let current = try p.version(of: user)
            let greeting = try client.readUntil("\"version\":\(current)}")
            XCTAssertTrue(greeting.hasPrefix("HTTP/1.1 200"), greeting)
            return client
        }
        let alice = try stream("alice")
        let bob = try stream("bob")
        try p.order("a2", owner: "alice")
        let aliceVersion = try p.version(of: "alice")
        XCTAssertTrue(try alice.readUntil("\"version\":\(aliceVersion)}").contains("\"list\":\"orders\""))
        try p.order("b2", owner: "bob")
        let bobVersion = try p.version(of: "bob")
        let bobEvents = try bob.readUntil("\"version\":\(bobVersion)}")
        XCTAssertFalse(bobEvents.contains("\"version\":\(aliceVersion)}"), "bob's stream heard alice's write: \(bobEvents)")
    }

    func testPageTokensAndViewsOfOneUserAreRefusedForAnother() throws {
        let p = try PartitionApp()
        for id in ["a1", "a2", "a3"] { try p.order(id, owner: "alice") }
        for id in ["b1", "b2", "b3"] { try p.order(id, owner: "bob") }
        let first = try p.get("/v1/lists/orders/rows?pageSize=2", as: "alice").json
        let token: String = try first.value("nextPageToken")
        XCTAssertEqual(try p.get("/v1/lists/orders/rows?pageSize=2&pageToken=\(token)", as: "alice").status, 200)
        let refused = try p.get("/v1/lists/orders/rows?pageSize=2&pageToken=\(token)", as: "bob")
        XCTAssertEqual(refused.slug, "invalid-page-token")
        XCTAssertFalse(refused.text.contains("a1") || refused.text.contains("a2") || refused.text.contains("a3"), refused.text)

        let created = try p.app.request("POST", "/v1/lists/orders/views?user=alice", json: #"{"hidden":["help"]}"#, headers: p.service)
        let view: String = try created.expect(201).json.value("view")
        // Its Location names the user, so the service token that made it can follow it.
        let location = try XCTUnwrap(created.header("Location"))
        XCTAssertEqual(location, "/v1/lists/orders/views/\(view)?user=alice")
        XCTAssertEqual(try p.app.request("GET", location, headers: p.service).status, 200)
        let spaced = try p.app.request("POST", "/v1/lists/orders/views?user=al%20ice", json: "{}", headers: p.service).expect(201)
        XCTAssertEqual(try p.app.request("GET", try XCTUnwrap(spaced.header("Location")), headers: p.service).status, 200)
        // A user whose value holds U+0000 (PostgreSQL stores such an owner encoded: StoredText).
        let nul = try p.app.request("POST", "/v1/lists/orders/views?user=a%00b", json: "{}", headers: p.service).expect(201)
        XCTAssertEqual(try p.app.request("GET", try XCTUnwrap(nul.header("Location")), headers: p.service).status, 200)
        XCTAssertEqual(try p.get("/v1/lists/orders/rows?view=\(view)", as: "alice").status, 200)
        XCTAssertEqual(try p.get("/v1/lists/orders/rows?view=\(view)", as: "bob").slug, "view-not-found")
        XCTAssertEqual(try p.get("/v1/lists/orders/views/\(view)", as: "bob").slug, "view-not-found")
        XCTAssertEqual(try p.app.request("DELETE", "/v1/lists/orders/views/\(view)?user=bob", headers: p.service).slug, "view-not-found")
        XCTAssertEqual(try p.get("/v1/lists/orders/views/\(view)", as: "alice").status, 200, "bob's attempts did not delete it")
    }

    func testTheServiceTokensNextPageLinkNamesTheUser() throws {
        let p = try PartitionApp()
        for id in ["a1", "a2", "a3"] { try p.order(id, owner: "alice") }
        // Alice's own read first, so the page's answer (and its link) is already kept.
        XCTAssertNotNil(try p.get("/v1/lists/orders/rows?pageSize=2", as: "alice").header("Link"))
        let first = try p.app.request("GET", "/v1/lists/orders/rows?pageSize=2&user=alice", headers: p.service)
        let link = try XCTUnwrap(first.expect(200).header("Link"))
        XCTAssertTrue(link.contains("&user=alice>"), "the service token's next link names the user: \(link)")
        let target = String(link.dropFirst().prefix { $0 != ">" })
        let next = try p.app.request("GET", target, headers: p.service)
        XCTAssertEqual(next.status, 200, "the link is followed as it is: \(next.text)")
        XCTAssertTrue(next.text.contains("\"a3\""), next.text)
    }

    func testEvictedPartitionsAreRebuiltAtTheirVersionAndTheBudgetHolds() throws {
        // Each partition has 1 literal row and 2 records: a budget of 7 rows keeps two partitions.
        let p = try PartitionApp(sqlite: true, maxResidentRows: 7)
        let users = ["u1", "u2", "u3", "u4", "u5"]
        for user in users { for n in 1...2 { try p.order("\(user)-\(n)", owner: user) } }
        var versions: [String: Int] = [:]
        var bodies: [String: String] = [:]
        for user in users {
            versions[user] = try p.version(of: user)
            bodies[user] = try p.get("/v1/lists/orders/rows", as: user).text
        }
        let metrics = try p.app.get("/metrics").text
        let resident = try XCTUnwrap(Self.metric("sectional_partition_rows_resident{kind=\"partition\"}", in: metrics))
        XCTAssertLessThanOrEqual(resident, 7, metrics)
        XCTAssertGreaterThan(try XCTUnwrap(Self.metric("sectional_partition_evictions_total{kind=\"partition\"}", in: metrics)), 0)
        for user in users {
            XCTAssertEqual(try p.version(of: user), versions[user], "\(user)'s version survives eviction")
            XCTAssertEqual(try p.get("/v1/lists/orders/rows", as: user).text, bodies[user], "\(user)'s rebuilt answer is the same")
        }
        // A write to a partition that is not in memory moves its version; the rebuild shows it.
        let u1Version = try XCTUnwrap(versions["u1"])
        try p.order("u1-3", owner: "u1")
        XCTAssertGreaterThan(try p.version(of: "u1"), u1Version)
        XCTAssertEqual(try p.rowIDs(of: "u1"), ["contact", "u1-1", "u1-2", "u1-3"])
        for user in users.dropFirst() { XCTAssertEqual(try p.version(of: user), versions[user]) }
    }

    /// A partition keeps its `changes` history while in memory; one rebuilt after an eviction
    /// has none from before it, so a `changes?since=` from before the eviction answers reload.
    func testChangesSinceFromBeforeAnEvictionAnswerReload() throws {
        // 1 literal row and 2 records a partition: a budget of 7 rows keeps two partitions.
        let p = try PartitionApp(sqlite: true, maxResidentRows: 7)
        for n in 1...2 { try p.order("u1-\(n)", owner: "u1") }
        let before = try p.version(of: "u1")
        try p.order("u1-1", owner: "u1", title: "Changed")
        let resident = try p.get("/v1/lists/orders/changes?since=\(before)", as: "u1").json
        XCTAssertEqual(try resident.value("reload", as: Bool.self), false, "in memory: the history answers")
        let evictions = { try XCTUnwrap(Self.metric("sectional_partition_evictions_total{kind=\"partition\"}", in: try p.app.get("/metrics").text)) }
        let evictedBefore = try evictions()
        for user in ["u2", "u3", "u4"] {
            for n in 1...2 { try p.order("\(user)-\(n)", owner: user) }
            _ = try p.version(of: user)
        }
        XCTAssertGreaterThan(try evictions(), evictedBefore, "u1's partition, read longest ago, left memory")
        let rebuilt = try p.get("/v1/lists/orders/changes?since=\(before)", as: "u1").json
        XCTAssertEqual(try rebuilt.value("reload", as: Bool.self), true, "rebuilt with no history from before it")
        XCTAssertEqual(try p.rowIDs(of: "u1"), ["contact", "u1-1", "u1-2"])
    }

    func testPartitionVersionsAndTagsSurviveARestart() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var versions: [String: Int] = [:]
        var tags: [String: String] = [:]
        do {
            let p = try PartitionApp(sqlite: true, folder: folder)
            try p.order("a1", owner: "alice")
            try p.order("b1", owner: "bob")
            try p.order("a2", owner: "alice")
            try p.order("c1", owner: "carol")
            try p.order("c1", owner: "bob")  // moves carol's only order to bob
            for user in ["alice", "bob", "carol", "dan"] {
                versions[user] = try p.version(of: user)
                tags[user] = try p.get("/v1/lists/orders/rows", as: user).header("ETag")
            }
            XCTAssertEqual(versions["carol"], versions["bob"], "a move changes both partitions at once")
            XCTAssertEqual(versions["dan"], 0, "nothing was ever written to dan's partition")
        }
        let p = try PartitionApp(sqlite: true, folder: folder)
        for user in ["alice", "bob", "carol", "dan"] {
            XCTAssertEqual(try p.version(of: user), versions[user], "\(user)'s version after a restart")
            XCTAssertEqual(try p.get("/v1/lists/orders/rows", as: user, headers: [("If-None-Match", tags[user] ?? "")]).status, 304,
                           "\(user)'s ETag after a restart")
        }
        try p.order("a3", owner: "alice")
        XCTAssertGreaterThan(try p.version(of: "alice"), try XCTUnwrap(versions["alice"]))
        XCTAssertEqual(try p.version(of: "bob"), versions["bob"])
    }

    static func metric(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }
}
