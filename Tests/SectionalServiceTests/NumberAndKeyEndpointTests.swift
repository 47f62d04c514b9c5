import Foundation
import TestSupport
import XCTest

/// Numbers are served as written, big mixed sort values keep a list consistent, and long sort
/// keys keep paging working — over HTTP, on a real server.
final class NumberAndKeyEndpointTests: XCTestCase {
    static let config = """
    {"lists": {"things": {"title": "Things", "sections": [
      {"source": "things", "key": "all", "sortBy": [{"field": "v"}],
       "row": {"title": "{v}", "subtitle": "{v|number}"}}]}}}
    """

    /// A record's numbers come back as written (PUT → store → GET), and rows show exact values.
    func testNumbersRoundTripAsWritten() throws {
        let app = try TestApp(config: NumberAndKeyEndpointTests.config, sqlite: true)
        let body = #"{"id":"t1","v":9223372036854775808,"a":[1.50,1e2,-0,9007199254740993.0,0.1,12]}"#
        let put = try app.put("things", "t1", body)
        XCTAssertEqual(put.status, 201, put.text)
        XCTAssertTrue(put.text.contains(#""record":\#(body)"#), put.text)
        let get = try app.get("/v1/collections/things/records/t1")
        XCTAssertEqual(get.status, 200)
        XCTAssertEqual(get.text, body)
        let listed = try app.get("/v1/collections/things/records")
        XCTAssertTrue(listed.text.contains(body), listed.text)
        let row = try app.get("/v1/lists/things/rows/t1")
        XCTAssertTrue(row.text.contains(#""title":"9223372036854775808""#), row.text)
        XCTAssertTrue(row.text.contains(#""subtitle":"9,223,372,036,854,775,808""#), row.text)
    }

    /// The original symptom: sort values mixing integers and decimals above 2^53 made existing
    /// rows 404, page walks skip or loop, deleted rows stay and re-added ones double.
    func testMixedBigSortValuesKeepTheListConsistent() throws {
        let app = try TestApp(config: NumberAndKeyEndpointTests.config)
        let texts = ["9007199254740992", "9007199254740993", "9007199254740992.0"]
        var rng = SplitMix64(seed: 60)
        let records = (0..<60).map { "{\"id\":\"t\($0)\",\"v\":\(texts[Int(rng.next() % 3)])}" }
        XCTAssertEqual(try app.request("POST", "/v1/collections/things/batch", json: "{\"upsert\":[\(records.joined(separator: ","))]}").status, 200)
        var present = Set((0..<60).map { "t\($0)" })
        func check(_ label: String) throws {
            for id in present { XCTAssertEqual(try app.get("/v1/lists/things/rows/\(id)").status, 200, "\(label): \(id) resolves") }
            var walked: [String] = []
            var target = "/v1/lists/things/rows?pageSize=1"
            while walked.count <= 200 {
                let answer = try app.get(target)
                XCTAssertEqual(answer.status, 200, answer.text)
                for section in try answer.json["sections"] as? [[String: Any]] ?? [] {
                    walked += (section["rows"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                }
                guard let token = try answer.json["nextPageToken"] as? String else { break }
                target = "/v1/lists/things/rows?pageSize=1&pageToken=\(token)"
            }
            XCTAssertEqual(walked.count, present.count, "\(label): each row once")
            XCTAssertEqual(Set(walked), present, "\(label): the walk lists exactly the records")
        }
        try check("after the batch")
        for i in stride(from: 0, to: 60, by: 3) {
            XCTAssertEqual(try app.request("DELETE", "/v1/collections/things/records/t\(i)").status, 204)
            present.remove("t\(i)")
        }
        try check("after deletes")
        for i in stride(from: 0, to: 60, by: 6) {
            XCTAssertEqual(try app.put("things", "t\(i)", "{\"v\":\(texts[i % 3])}").status, 201)
            present.insert("t\(i)")
        }
        try check("after re-adds")
    }

    /// A row whose sort key is 28,000 characters: the next page's token stays within 1 KiB and
    /// the walk goes on.
    func testLongSortKeyKeepsPagingWorking() throws {
        let app = try TestApp(config: NumberAndKeyEndpointTests.config)
        let long = String(repeating: "x", count: 28_000)
        for (id, v) in [("a", long + "1"), ("b", long + "2"), ("c", "y"), ("d", long + "3")] {
            XCTAssertEqual(try app.put("things", id, "{\"v\":\"\(v)\"}").status, 201)
        }
        var walked: [String] = []
        var target = "/v1/lists/things/rows?pageSize=1"
        while walked.count <= 10 {
            let answer = try app.get(target)
            XCTAssertEqual(answer.status, 200, String(answer.text.prefix(300)))
            for section in try answer.json["sections"] as? [[String: Any]] ?? [] {
                walked += (section["rows"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            guard let token = try answer.json["nextPageToken"] as? String else { break }
            XCTAssertLessThanOrEqual(token.utf8.count, 1024)
            target = "/v1/lists/things/rows?pageSize=1&pageToken=\(token)"
        }
        XCTAssertEqual(walked, ["a", "b", "d", "c"])
    }
}

