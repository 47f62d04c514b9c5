import Foundation
import TestSupport
import XCTest

/// The search corpus of a list that is the same for everyone is made in the background after
/// start and after a definition change (the first search does not read storage), and keeps the
/// writes made while it is made.
final class SearchCorpusWarmUpTests: XCTestCase {
    static let config = """
    {
      "lists": {
        "people": {
          "search": { "fields": ["name"] },
          "sections": [ { "key": "all", "source": "people", "type": "all", "title": "All", "sortBy": [ { "field": "name" } ],
                          "row": { "type": "person", "title": "{name}" } } ]
        },
        "teams": {
          "filters": ["team"],
          "sections": [ { "key": "all", "source": "people", "type": "all", "title": "All", "row": { "type": "person", "title": "{name}" } } ]
        },
        "plain": {
          "sections": [ { "key": "all", "source": "people", "type": "all", "title": "All", "row": { "type": "person", "title": "{name}" } } ]
        }
      }
    }
    """

    /// Polls `/metrics` until the search corpus of `list` holds `records` records; fails after 30 s.
    private func waitForCorpus(_ app: TestApp, _ list: String = "people", records: Int,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let series = "sectional_search_corpus_records{list=\"\(list)\"}"
        let deadline = Date().addingTimeInterval(30)
        var last: Double?
        while Date() < deadline {
            last = try app.metric(series)
            if last == Double(records) { return }
        }
        XCTFail("the corpus of \(list) holds \(last.map { "\($0)" } ?? "nothing"), not \(records) records", file: file, line: line)
    }

    private func ids(_ app: TestApp, _ q: String, list: String = "people", query: String = "q") throws -> Set<String> {
        let rows = try walkPages { token in
            let answer = try app.get("/v1/lists/\(list)/rows?\(query)=\(q)&pageSize=500" + (token.map { "&pageToken=\($0)" } ?? ""))
            XCTAssertEqual(answer.status, 200, answer.text)
            return try answer.json
        }.sections.flatMap(\.rows).compactMap { $0 }
        return Set(rows)
    }

    func testTheCorpusIsMadeAtStartAndKeepsTheWritesMadeWhileItIsMade() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // More than one page of start-up's read and of the corpus's making (16,384 records each).
        let count = 20_000
        do {
            let app = try TestApp(config: Self.config, folder: folder, sqlite: true)
            let records = (0..<count).map { #"{"id":"p\#($0)","name":"Person \#($0)"}"# }
            for start in stride(from: 0, to: count, by: 2_500) {
                let batch = records[start..<min(start + 2_500, count)].joined(separator: ",")
                try app.request("POST", "/v1/collections/people/batch", json: #"{"upsert":[\#(batch)]}"#).expect(200)
            }
            app.server.stop()
        }
        let app = try TestApp(config: Self.config, folder: folder, sqlite: true)
        // Right after start, while the corpus is made: new records, renamed ones, deleted ones.
        for n in 0..<10 { try app.put("people", "z\(n)", #"{"name":"Zebulon \#(n)"}"#).expect(201) }
        for n in 0..<5 { try app.put("people", "p\(n)", #"{"name":"Zelda \#(n)"}"#).expect(200) }
        for n in 5..<8 { try app.request("DELETE", "/v1/collections/people/records/p\(n)").expect(200...204) }
        try waitForCorpus(app, records: count + 10 - 3)
        XCTAssertNil(try app.metric("sectional_search_corpus_records{list=\"plain\"}"), "a list without search has none")

        XCTAssertEqual(try ids(app, "zebulon"), Set((0..<10).map { "z\($0)" }))
        XCTAssertEqual(try ids(app, "zelda"), Set((0..<5).map { "p\($0)" }))
        XCTAssertEqual(try ids(app, "person%202999"), ["p2999"])
        let sixes = try ids(app, "person%206")
        XCTAssertFalse(sixes.contains("p6"), "a deleted record is not found")
        XCTAssertEqual(sixes.count, 10 + 100 + 1_000, "Person 60 to 69, 600 to 699 and 6000 to 6999")
        XCTAssertEqual(try ids(app, "person%2029"), Set(["p29"] + (290..<300).map { "p\($0)" } + (2900..<3000).map { "p\($0)" }))

        try app.put("people", "z10", #"{"name":"Zebulon late"}"#).expect(201)
        XCTAssertEqual(try ids(app, "zebulon"), Set((0..<11).map { "z\($0)" }), "a write after it is found")
        try waitForCorpus(app, records: count + 11 - 3)
    }

    func testADefinitionChangeMakesTheNewCorpusInTheBackground() throws {
        let token = "warm-up-test-token"
        let service = [("Authorization", "Bearer \(token)")]
        let app = try TestApp(config: Self.config, token: token)
        try waitForCorpus(app, records: 0)
        try app.request("POST", "/v1/collections/people/batch", json: """
        {"upsert":[{"id":"p1","name":"Ada","team":"Design"},{"id":"p2","name":"Bea","team":"Design"},{"id":"p3","name":"Adam","team":"Sales"}]}
        """, headers: service).expect(200)
        try waitForCorpus(app, records: 3)
        XCTAssertEqual(try ids(app, "ada"), ["p1", "p3"])

        try waitForCorpus(app, "teams", records: 3)
        XCTAssertEqual(try ids(app, "Sales", list: "teams", query: "filter.team"), ["p3"], "a list with filters only has one too")
        try app.request("PUT", "/v1/collections/people/records/p2", json: #"{"name":"Bea","team":"Sales"}"#, headers: service).expect(200)
        XCTAssertEqual(try ids(app, "Sales", list: "teams", query: "filter.team"), ["p2", "p3"], "and it follows the writes")

        let definition = """
        { "search": { "fields": ["team"] },
          "sections": [ { "key": "all", "source": "people", "type": "all", "title": "All", "row": { "type": "person", "title": "{name}" } } ] }
        """
        try app.request("PUT", "/v1/lists/people/definition", json: definition, headers: service).expect(200)
        try waitForCorpus(app, records: 3)
        XCTAssertEqual(try ids(app, "sales"), ["p2", "p3"], "the corpus of the new definition searches the new fields")
        XCTAssertEqual(try ids(app, "ada"), [])
    }
}
