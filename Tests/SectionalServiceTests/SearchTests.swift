import Foundation
import TestSupport
import XCTest

/// Search and filters at request time: `?q=` and `?filter.FIELD=` make a list in its own right
/// (sections, paging, tokens, tags, `changes`), case- and Latin-diacritic-insensitive.
final class SearchTests: XCTestCase {
    static let serviceToken = "service-token-for-search-tests"
    static let config = """
    {
      "lists": {
        "people": {
          "search": { "fields": ["name", "email"] },
          "filters": ["team", "status", "level"],
          "sections": [
            { "key": "pinned", "type": "pinned", "title": "Pinned", "rows": [ { "id": "me", "type": "profile", "title": "Me" } ] },
            { "source": "people", "groupBy": "team", "type": "team", "title": "{$key} ({$count})",
              "sortBy": [ { "field": "name" } ], "row": { "type": "person", "title": "{name}", "subtitle": "{email}" } }
          ]
        },
        "plain": {
          "sections": [ { "key": "all", "source": "people", "type": "all", "title": "All", "row": { "type": "person", "title": "{name}" } } ]
        },
        "orders": {
          "scope": { "field": "owner", "claim": "sub" },
          "search": { "fields": ["title"] },
          "sections": [ { "key": "mine", "source": "orders", "type": "mine", "title": "Mine", "sortBy": [ { "field": "title" } ],
                          "row": { "type": "order", "title": "{title}" } } ]
        }
      }
    }
    """

    private func app(maxResidentRows: Int? = nil, sqlite: Bool = false) throws -> TestApp {
        try TestApp(config: Self.config, sqlite: sqlite, token: Self.serviceToken, maxResidentRows: maxResidentRows)
    }

    private var service: [(String, String)] { [("Authorization", "Bearer \(Self.serviceToken)")] }

    private func person(_ app: TestApp, _ id: String, _ name: String, team: String = "Design", status: String = "active",
                        level: Int = 1, email: String? = nil) throws {
        let json = #"{"name":"\#(name)","team":"\#(team)","status":"\#(status)","level":\#(level),"email":"\#(email ?? "\(id)@example.com")"}"#
        try app.request("PUT", "/v1/collections/people/records/\(id)", json: json, headers: service).expect(200...201)
    }

    /// Every page of `target` (which has a query string), walked with `nextPageToken`: the
    /// version and the outline (section keys and row ids).
    private func outline(_ app: TestApp, _ target: String, pageSize: Int = 500,
                         headers: [(String, String)] = []) throws -> (version: Int, sections: [ChangesApplier.Section]) {
        try walkPages { token in
            let answer = try app.request("GET", "\(target)&pageSize=\(pageSize)" + (token.map { "&pageToken=\($0)" } ?? ""), headers: headers)
            XCTAssertEqual(answer.status, 200, answer.text)
            return try answer.json
        }
    }

    private func ids(_ app: TestApp, _ query: String, headers: [(String, String)] = []) throws -> [String] {
        try outline(app, "/v1/lists/people/rows?\(query)", headers: headers).sections.flatMap(\.rows).compactMap { $0 }
    }

    func testSearchIgnoresCaseAndTheDiacriticsOfLatinLetters() throws {
        let app = try app()
        try person(app, "p1", "Émilie Durand")
        try person(app, "p2", "EMILE ZOLA", team: "Sales")
        try person(app, "p3", "Zoë Ørsted", team: "Sales")
        try person(app, "p4", "Bob", email: "BOB@Mail.Example")
        try person(app, "p5", "E\u{301}loi Decomposed")
        XCTAssertEqual(try ids(app, "q=emilie"), ["me", "p1"], "accented text is found by plain text")
        XCTAssertEqual(try ids(app, "q=%C3%89MILIE"), ["me", "p1"], "and by the accented text, in capitals")
        XCTAssertEqual(try ids(app, "q=EMIL"), ["me", "p1", "p2"])
        XCTAssertEqual(try ids(app, "q=zoe%20orsted"), ["me", "p3"], "ø folds to o")
        XCTAssertEqual(try ids(app, "q=mail.example"), ["me", "p4"], "every search field is searched")
        XCTAssertEqual(try ids(app, "q=eloi"), ["me", "p5"], "decomposed accents fold too")
        XCTAssertEqual(try ids(app, "q=nobody"), ["me"])
        XCTAssertEqual(try ids(app, "q=zola%1Fp2"), ["me"], "no match spans two fields (U+001F separates them)")
        XCTAssertEqual(try ids(app, "q=%1Fp"), ["me"], "a separator in the query is a space")

        let page = try app.get("/v1/lists/people/rows?q=zola").json
        let sections: [[String: Any]] = try page.value("sections")
        XCTAssertEqual(try sections.map { try $0.value("key", as: String.self) }, ["pinned", "Sales"],
                       "a group without matching rows disappears")
        XCTAssertEqual(try sections[1].value("title", as: String.self), "Sales (1)", "counts are of the result")
        let outline = try app.get("/v1/lists/people?q=zola").json
        XCTAssertEqual(try outline.value("sectionCount", as: Int.self), 2, "\(outline)")
    }

    /// A number in a search field is searched as its JSON text, folded as text is: one written
    /// `1E+2` is found by `1e+2` and `1E+2` alike (the query is folded, the number's text was
    /// not, and nothing found it).
    func testANumbersTextIsFoldedAsTheQueryIs() throws {
        let config = #"{"lists":{"n":{"search":{"fields":["n"]},"sections":[{"key":"all","source":"nums","row":{"title":"{id}"}}]}}}"#
        let app = try TestApp(config: config, token: Self.serviceToken)
        for (id, n) in [("up", "1E+2"), ("low", "1e3"), ("plain", "250")] {
            try app.request("PUT", "/v1/collections/nums/records/\(id)", json: #"{"n":\#(n)}"#, headers: service).expect(201)
        }
        let found = { (q: String) throws -> [String] in
            let page = try app.get("/v1/lists/n/rows?q=\(q)").json
            let sections: [[String: Any]] = try page.value("sections")
            return try sections.flatMap { try ($0.value("rows", as: [[String: Any]].self)).map { try $0.value("id", as: String.self) } }.sorted()
        }
        XCTAssertEqual(try found("1E%2B2"), ["up"])
        XCTAssertEqual(try found("e%2B2"), ["up"])
        XCTAssertEqual(try found("1E"), ["low", "up"])
        XCTAssertEqual(try found("25"), ["plain"])
    }

    func testFiltersAreFieldEqualityAndAllMustHold() throws {
        let app = try app()
        try person(app, "p1", "Ada", team: "Design", status: "active", level: 2)
        try person(app, "p2", "Bea", team: "Design", status: "away", level: 1)
        try person(app, "p3", "Cy", team: "Sales", status: "active", level: 2)
        try person(app, "p4", "Di", team: "Design", status: "active", level: 1)
        XCTAssertEqual(try ids(app, "filter.team=Design"), ["me", "p1", "p2", "p4"])
        XCTAssertEqual(try ids(app, "filter.team=Design&filter.status=active"), ["me", "p1", "p4"])
        XCTAssertEqual(try ids(app, "filter.status=active&filter.level=2"), ["me", "p1", "p3"], "a number field equals the number")
        XCTAssertEqual(try ids(app, "filter.team=design"), ["me"], "filters compare exactly")
        // By code points: a precomposed é and an e with a combining accent are two values.
        try person(app, "p5", "Eve", team: "Caf\u{E9}")
        try person(app, "p6", "Flo", team: "Cafe\u{301}")
        XCTAssertEqual(try ids(app, "filter.team=Caf%C3%A9"), ["me", "p5"])
        XCTAssertEqual(try ids(app, "filter.team=Cafe%CC%81"), ["me", "p6"])
        XCTAssertEqual(try ids(app, "filter.team=Design&filter.team=Sales"), ["me"], "a repeated filter must hold too")
        XCTAssertEqual(try ids(app, "filter.team=Design&q=BEA"), ["me", "p2"], "search and filters together")
        XCTAssertEqual(try ids(app, "filter.team=Sales&q=bea"), ["me"])
    }

    func testUndeclaredFieldsAndSearchOnAListWithoutItAreRefused() throws {
        let app = try app()
        try person(app, "p1", "Ada")
        for target in ["/v1/lists/people/rows?filter.email=x", "/v1/lists/people?filter.=x", "/v1/lists/plain/rows?q=ada",
                       "/v1/lists/plain/changes?since=0&q=ada", "/v1/lists/people/changes?since=0&filter.name=Ada",
                       "/v1/lists/people/events?filter.nope=1", "/v1/lists/plain/rows?filter.team=Design",
                       // U+001F separates a query's parts in what its tags and tokens are bound to: it made
                       // this one the same query as filter.team=Design&filter.status=active.
                       "/v1/lists/people/rows?filter.team=Design%1Ffilter.status%3Dactive"] {
            let answer = try app.get(target)
            XCTAssertEqual(answer.status, 400, target)
            XCTAssertEqual(answer.slug, "invalid-request", target)
            XCTAssertEqual(answer.header("Content-Type"), "application/problem+json", target)
        }
        XCTAssertEqual(try ids(app, "q=ada"), ["me", "p1"], "the server keeps serving")
    }

    func testPagesOfASearchAndTokensBoundToTheirQuery() throws {
        let app = try app()
        for n in 1...12 { try person(app, "a\(n)", "Anna \(String(format: "%02d", n))") }
        for n in 1...5 { try person(app, "b\(n)", "Bert \(n)") }
        let walked = try outline(app, "/v1/lists/people/rows?q=anna", pageSize: 5).sections.flatMap(\.rows)
        XCTAssertEqual(walked, ["me"] + (1...12).map { "a\($0)" })

        let first = try app.get("/v1/lists/people/rows?q=anna&pageSize=5")
        let token: String = try first.json.value("nextPageToken")
        let link = try XCTUnwrap(first.header("Link"))
        XCTAssertTrue(link.contains("q=anna"), "the next link keeps the query: \(link)")
        XCTAssertEqual(try app.get("/v1/lists/people/rows?q=anna&pageSize=5&pageToken=\(token)").status, 200)
        for other in ["q=bert&", "q=ann&", "", "filter.team=Design&"] {
            let answer = try app.get("/v1/lists/people/rows?\(other)pageSize=5&pageToken=\(token)")
            XCTAssertEqual(answer.status, 400, other)
            XCTAssertEqual(answer.slug, "invalid-page-token", other)
        }
        XCTAssertEqual(try app.get("/v1/lists/people/rows?q=ANNA&pageSize=5&pageToken=\(token)").status, 200,
                       "the same query in other capitals is the same list")

        let tag = try XCTUnwrap(first.header("ETag"))
        XCTAssertNotEqual(tag, try app.get("/v1/lists/people/rows?pageSize=5").header("ETag"), "a result has tags of its own")
        XCTAssertEqual(try app.request("GET", "/v1/lists/people/rows?q=anna&pageSize=5", headers: [("If-None-Match", tag)]).status, 304)
        let located = try app.get("/v1/lists/people/rows/a3?q=anna").json
        let indexPath: [String: Any] = try located.value("indexPath")
        XCTAssertEqual(indexPath["section"] as? Int, 1, "\(located)")
        XCTAssertEqual(indexPath["row"] as? Int, 2, "\(located)")
        XCTAssertEqual(try app.get("/v1/lists/people/rows/b1?q=anna").status, 404, "rows outside the result are not found in it")
    }

    func testChangesOfASearchFollowRecordsEnteringAndLeavingIt() throws {
        let app = try app()
        try person(app, "p1", "Anna", team: "Design")
        try person(app, "p2", "Annabel", team: "Sales")
        try person(app, "p3", "Bert", team: "Design")
        try person(app, "p4", "Carl", team: "Sales")
        let target = "/v1/lists/people/rows?q=ann"
        let old = try outline(app, target)
        XCTAssertEqual(old.sections.flatMap(\.rows), ["me", "p1", "p2"])

        try person(app, "p3", "Hannah", team: "Design")     // starts to match
        try person(app, "p2", "Bella", team: "Sales")       // stops matching (its section goes too)
        try person(app, "p4", "Carla", team: "Sales")       // never matches
        try person(app, "p5", "Joanna", team: "Legal")      // a new match, in a new section
        let new = try outline(app, target)
        XCTAssertEqual(new.sections.flatMap(\.rows), ["me", "p1", "p3", "p5"])
        XCTAssertGreaterThan(new.version, old.version)
        XCTAssertEqual(try app.version(of: "people"), new.version, "a result moves with its list's versions")

        let answer = try app.get("/v1/lists/people/changes?since=\(old.version)&q=ann")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(try answer.json["reload"] as? Bool, false, answer.text)
        XCTAssertEqual(try answer.json["to"] as? Int, new.version)
        XCTAssertNoThrow(try ChangesApplier.apply(old: old.sections, changes: answer.body, new: new.sections), answer.text)
        let rows: [String: [Any]] = try answer.json.value("rows")
        XCTAssertEqual(rows["inserted"]?.count, 1, "p3 enters (p5 comes with its new section): \(answer.text)")
        let sections: [String: [Any]] = try answer.json.value("sections")
        XCTAssertEqual(sections["deleted"]?.count, 1, "Sales empties out: \(answer.text)")
        XCTAssertEqual(sections["inserted"]?.count, 1, "Legal comes in: \(answer.text)")

        let unrelated = try app.get("/v1/lists/people/changes?since=\(new.version)&q=ann").json
        XCTAssertEqual((unrelated["rows"] as? [String: [Any]])?["inserted"]?.count, 0)
    }

    func testAPerUserListIsSearchedWithinTheUsersPartition() throws {
        try checkPerUserSearch(sqlite: false)
        try checkPerUserSearch(sqlite: true)
    }

    private func checkPerUserSearch(sqlite: Bool) throws {
        let app = try app(sqlite: sqlite)
        func order(_ id: String, owner: String, title: String) throws {
            try app.request("PUT", "/v1/collections/orders/records/\(id)", json: #"{"owner":"\#(owner)","title":"\#(title)"}"#,
                            headers: service).expect(200...201)
        }
        try order("a1", owner: "alice", title: "Desk lamp")
        try order("a2", owner: "alice", title: "Chair")
        try order("b1", owner: "bob", title: "Lamp shade")
        func search(_ user: String) throws -> (version: Int, sections: [ChangesApplier.Section]) {
            try outline(app, "/v1/lists/orders/rows?user=\(user)&q=LAMP", headers: service)
        }
        XCTAssertEqual(try search("alice").sections.flatMap(\.rows), ["a1"])
        XCTAssertEqual(try search("bob").sections.flatMap(\.rows), ["b1"])
        XCTAssertEqual(try search("carol").sections.flatMap(\.rows), [])
        XCTAssertEqual(try search("carol").sections.count, 0, "a keyed data section without matching rows disappears too")
        XCTAssertEqual(try outline(app, "/v1/lists/orders/rows?user=carol", headers: service).sections.count, 1,
                       "in the list itself it is there, empty")

        let alice = try search("alice")
        try order("b2", owner: "bob", title: "Floor lamp")
        XCTAssertEqual(try search("alice").version, alice.version, "bob's write leaves alice's search alone")
        XCTAssertEqual(try search("bob").sections.flatMap(\.rows), ["b2", "b1"])
        try order("b1", owner: "alice", title: "Lamp shade")   // moves to alice
        let moved = try search("alice")
        XCTAssertEqual(moved.sections.flatMap(\.rows), ["a1", "b1"])
        XCTAssertEqual(try search("bob").sections.flatMap(\.rows), ["b2"])
        let answer = try app.request("GET", "/v1/lists/orders/changes?user=alice&q=lamp&since=\(alice.version)", headers: service)
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertNoThrow(try ChangesApplier.apply(old: alice.sections, changes: answer.body, new: moved.sections), answer.text)

        let aliceToken: String? = try app.request("GET", "/v1/lists/orders/rows?user=alice&q=lamp&pageSize=1", headers: service)
            .json["nextPageToken"] as? String
        let token = try XCTUnwrap(aliceToken)
        let stolen = try app.request("GET", "/v1/lists/orders/rows?user=bob&q=lamp&pageSize=1&pageToken=\(token)", headers: service)
        XCTAssertEqual(stolen.slug, "invalid-page-token", "a token of alice's search is not one of bob's")
    }

    /// On one connection (one server thread, which remembers its last warm search), a repeated
    /// search follows writes, and each user's search stays theirs.
    func testARepeatedSearchOnOneConnectionFollowsWritesAndUsers() throws {
        let app = try app()
        let client = try app.client()
        func rows(_ target: String, headers: [(String, String)] = []) throws -> [String] {
            let answer = try client.request("GET", target, headers: headers)
            XCTAssertEqual(answer.status, 200, answer.text)
            let sections: [[String: Any]] = try answer.json.value("sections")
            return try sections.flatMap { try $0.value("rows", as: [[String: Any]].self).map { try $0.value("id", as: String.self) } }
        }
        try person(app, "p1", "Anna")
        for _ in 0..<3 { XCTAssertEqual(try rows("/v1/lists/people/rows?q=ann"), ["me", "p1"]) }
        try person(app, "p2", "Annika")
        XCTAssertEqual(try rows("/v1/lists/people/rows?q=ann"), ["me", "p1", "p2"], "the write is in the next answer")
        try person(app, "p1", "Bert")
        XCTAssertEqual(try rows("/v1/lists/people/rows?q=ann"), ["me", "p2"])
        XCTAssertEqual(try rows("/v1/lists/people/rows?q=ann"), ["me", "p2"])
        XCTAssertEqual(try rows("/v1/lists/people/rows?q=bert"), ["me", "p1"], "another word, another result")
        XCTAssertEqual(try rows("/v1/lists/people/rows?q=ANN"), ["me", "p2"])
        XCTAssertEqual(try rows("/v1/lists/people/rows?q=ann&filter.team=Sales"), ["me"])
        XCTAssertEqual(try rows("/v1/lists/people/rows"), ["me", "p2", "p1"], "no search: the list")

        for (id, owner) in [("a1", "alice"), ("b1", "bob")] {
            try app.request("PUT", "/v1/collections/orders/records/\(id)", json: #"{"owner":"\#(owner)","title":"Lamp"}"#,
                            headers: service).expect(200...201)
        }
        for _ in 0..<2 {
            XCTAssertEqual(try rows("/v1/lists/orders/rows?user=alice&q=lamp", headers: service), ["a1"])
            XCTAssertEqual(try rows("/v1/lists/orders/rows?user=alice&q=lamp", headers: service), ["a1"])
            XCTAssertEqual(try rows("/v1/lists/orders/rows?user=bob&q=lamp", headers: service), ["b1"], "alice's search is not bob's")
        }
    }

    /// Search results held in memory are counted as such (`kind="search"`), not as users' partitions.
    func testResidentResultsAreCountedAsSearchesNotPartitions() throws {
        let app = try app()
        for (n, name) in ["Anna", "Annika", "Bert"].enumerated() { try person(app, "p\(n)", name) }
        XCTAssertFalse(try ids(app, "q=ann").isEmpty)
        XCTAssertEqual(try app.metric(#"sectional_partitions_resident{kind="search"}"#), 1)
        XCTAssertGreaterThan(try XCTUnwrap(app.metric(#"sectional_partition_rows_resident{kind="search"}"#)), 0)
        XCTAssertEqual(try app.metric(#"sectional_partitions_resident{kind="partition"}"#), 0, "no user's partition was read")
        XCTAssertEqual(try app.metric(#"sectional_partition_rows_resident{kind="partition"}"#), 0)
    }

    func testResultsAreEvictedUnderTheBudgetAndRebuiltAtTheirListsVersion() throws {
        let app = try app(maxResidentRows: 4, sqlite: true)
        for (n, name) in ["Anna", "Annika", "Bert", "Berta", "Carl", "Carla"].enumerated() { try person(app, "p\(n)", name) }
        let anna = try outline(app, "/v1/lists/people/rows?q=ann")
        let tag = try XCTUnwrap(app.get("/v1/lists/people/rows?q=ann").header("ETag"))
        for query in ["q=ber", "q=car", "filter.team=Design", "q=a"] { _ = try ids(app, query) }
        XCTAssertGreaterThan(try XCTUnwrap(app.metric("sectional_partition_evictions_total{kind=\"search\"}")), 0, "results share the budget")
        let again = try outline(app, "/v1/lists/people/rows?q=ann")
        XCTAssertEqual(again.version, anna.version, "rebuilt at the same version")
        XCTAssertEqual(again.sections, anna.sections)
        XCTAssertEqual(try app.request("GET", "/v1/lists/people/rows?q=ann", headers: [("If-None-Match", tag)]).status, 304,
                       "an evicted result keeps its entity tag")

        _ = try ids(app, "q=ber")       // evicts q=ann again
        try person(app, "p0", "Bob")    // Anna leaves while her result is not in memory
        let after = try outline(app, "/v1/lists/people/rows?q=ann")
        XCTAssertEqual(after.sections.flatMap(\.rows), ["me", "p1"])
        XCTAssertEqual(after.version, try app.version(of: "people"))
    }

    func testADefinitionChangeTakesItsSearchFieldsAtOnce() throws {
        let app = try app()
        try person(app, "p1", "Ada", email: "zed@example.com")
        try person(app, "p2", "Zed", email: "ada@example.com")
        XCTAssertEqual(try ids(app, "q=zed"), ["me", "p1", "p2"])
        let definition = #"{"search":{"fields":["name"]},"sections":[{"key":"all","source":"people","type":"all","title":"All","sortBy":[{"field":"name"}],"row":{"type":"person","title":"{name}"}}]}"#
        try app.request("PUT", "/v1/lists/people/definition", json: definition, headers: service).expect(200...201)
        XCTAssertEqual(try ids(app, "q=zed"), ["p2"], "only the new search fields are searched")
        XCTAssertEqual(try app.get("/v1/lists/people/rows?filter.team=Design").slug, "invalid-request", "the new definition has no filters")
        try person(app, "p3", "Zedekiah")
        XCTAssertEqual(try ids(app, "q=zed"), ["p2", "p3"])
    }
}
