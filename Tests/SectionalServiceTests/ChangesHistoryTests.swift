import Foundation
import TestSupport
import XCTest

/// How far back `changes` can answer: the history keeps the last 1,000 versions of a list (and at
/// most 10,000 written rows); a `since` from before it answers `reload`.
final class ChangesHistoryTests: XCTestCase {
    func testASinceOlderThanTheLastThousandVersionsAnswersReload() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let first = try app.version()
        let client = try app.client()
        for n in 1...1_000 {
            let answer = try client.request("PUT", "/v1/collections/people/records/p1", headers: [("Content-Type", "application/json")],
                                            body: Array("{\"name\":\"Ada \(n)\",\"team\":\"Design\"}".utf8))
            guard answer.status == 200 else { return XCTFail("write \(n): \(answer.status) \(answer.text)") }
        }
        let current = try app.version()
        XCTAssertEqual(current, first + 1_000, "one version per write")

        let dropped = try app.get("/v1/lists/people/changes?since=\(first)").json
        XCTAssertEqual(dropped["reload"] as? Bool, true, "version \(first) is the 1,001st from the end")
        XCTAssertEqual(dropped["to"] as? Int, current)
        XCTAssertNil(dropped["rows"])
        let kept = try app.get("/v1/lists/people/changes?since=\(first + 1)").json
        XCTAssertEqual(kept["reload"] as? Bool, false, "the oldest version kept still answers")
        XCTAssertEqual(try kept.value("rows", as: [String: [Any]].self).values.reduce(0) { $0 + $1.count }, 1, "one row changed: \(kept)")
    }

    func testASinceBeforeTheLast10000WrittenRowsAnswersReload() throws {
        let app = try TestApp()
        let client = try app.client()
        /// Rewrites the same 1,000 records: one version, 1,000 written rows.
        func batch(_ n: Int) throws -> Int {
            let records = (0..<1_000).map { "{\"id\":\"p\($0)\",\"name\":\"N\(n)\",\"team\":\"T\($0 % 10)\"}" }
            let answer = try client.request("POST", "/v1/collections/people/batch", headers: [("Content-Type", "application/json")],
                                            body: Array(("{\"upsert\":[" + records.joined(separator: ",") + "]}").utf8))
            guard answer.status == 200 else { throw UnexpectedAnswer(description: "batch \(n): \(answer.status) \(answer.text)") }
            return try app.version()
        }
        let start = try app.version()
        let versions = try (1...10).map(batch)
        // 10,000 rows written since `start`: all still answerable (maxChanges lifted past 1,000 ids).
        let all = try app.get("/v1/lists/people/changes?since=\(start)&maxChanges=20000").json
        XCTAssertEqual(all["reload"] as? Bool, false, "10,000 written rows are kept")
        // One more row: the oldest batch falls out of the history.
        XCTAssertEqual(try app.put("people", "p0", #"{"name":"Last","team":"T0"}"#).status, 200)
        for since in [start, versions[0]] {
            let answer = try app.get("/v1/lists/people/changes?since=\(since)&maxChanges=20000").json
            XCTAssertEqual(answer["reload"] as? Bool, true, "since \(since): older than the last 10,000 written rows")
        }
        let kept = try app.get("/v1/lists/people/changes?since=\(versions[1])&maxChanges=20000").json
        XCTAssertEqual(kept["reload"] as? Bool, false, "since \(versions[1]): within the last 10,000 written rows")
    }
}
