import Foundation
import TestSupport
import XCTest

/// How far back `changes` can answer: the history keeps the last 1,000 versions of a list (and at
/// most 100,000 written rows); a `since` from before it answers `reload`.
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
}
