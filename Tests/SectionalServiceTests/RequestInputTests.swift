import Foundation
import TestSupport
import XCTest

/// Numbers, media types and echoed input at the edges of what a request may say.
final class RequestInputTests: XCTestCase {
    func testSectionRangeCountFollowsThePageSizeRules() throws {
        let app = try TestApp()
        try app.seed((1...60).map { ("p\($0)", "Person \($0)", "Design") })
        func rows(_ query: String) throws -> Int? {
            let answer = try app.get("/v1/lists/people/sections/1/rows?\(query)")
            XCTAssertEqual(answer.status, 200, "\(query): \(answer.text)")
            return try cast((try answer.json.value("section", as: [String: Any].self))["rows"], as: [Any].self).count
        }
        XCTAssertEqual(try rows("count=99999999999999999999"), 60, "a huge count clamps, as a huge pageSize does")
        XCTAssertEqual(try app.get("/v1/lists/people/rows?pageSize=99999999999999999999").status, 200)
        XCTAssertEqual(try rows("count=0"), 50, "0 means the default, 50")
        XCTAssertEqual(try rows("count=007"), 7)
        for bad in ["-1", "1.5", "x", ""] {
            XCTAssertEqual(try app.get("/v1/lists/people/sections/1/rows?count=\(bad)").slug, "invalid-request", bad)
        }
    }

    func testAWriteInAnotherCharsetIsRefused() throws {
        let app = try TestApp()
        let body = #"{"name":"Ada","team":"Design"}"#
        for type in ["application/json; charset=iso-8859-1", "application/json;charset=latin1", "application/json; charset=\"utf-16\""] {
            let answer = try app.client().request("PUT", "/v1/collections/people/records/p1", headers: [("Content-Type", type)],
                                                  body: Array(body.utf8))
            XCTAssertEqual(answer.status, 415, type)
            XCTAssertEqual(answer.slug, "unsupported-media-type", type)
        }
        XCTAssertEqual(try app.get("/v1/collections/people/records/p1").slug, "record-not-found", "nothing was written")
        for type in ["application/json; charset=utf-8", "application/json; charset=UTF-8", "application/json;charset=\"utf-8\"",
                     "Application/JSON"] {
            let answer = try app.client().request("PUT", "/v1/collections/people/records/p1", headers: [("Content-Type", type)],
                                                  body: Array(body.utf8))
            XCTAssertTrue([200, 201].contains(answer.status), "\(type): \(answer.text)")
        }
    }

    /// A body with a content coding is refused, packed (gzip is not unpacked) or not (a plain
    /// body labelled gzip is not read as if unlabelled); two `Content-Type` lines are refused
    /// whichever comes first, not read by the first one.
    func testABodyWithAContentCodingOrTwoContentTypesIsRefused() throws {
        let app = try TestApp()
        let body = Array(#"{"name":"Ada","team":"Design"}"#.utf8)
        for coding in ["gzip", "br", "identity, gzip"] {
            let answer = try app.client().request("PUT", "/v1/collections/people/records/p1",
                                                  headers: [("Content-Type", "application/json"), ("Content-Encoding", coding)], body: body)
            XCTAssertEqual(answer.status, 415, coding)
            XCTAssertEqual(answer.slug, "unsupported-media-type", coding)
            XCTAssertEqual(answer.header("Accept-Encoding"), "identity", coding)
        }
        for types in [("application/json", "text/plain"), ("application/json", "application/json; charset=latin1"),
                      ("application/json", "application/json")] {
            let answer = try app.client().request("PUT", "/v1/collections/people/records/p1",
                                                  headers: [("Content-Type", types.0), ("Content-Type", types.1)], body: body)
            XCTAssertEqual(answer.slug, "invalid-request", "\(types)")
        }
        XCTAssertEqual(try app.get("/v1/collections/people/records/p1").slug, "record-not-found", "nothing was written")
        let identity = try app.client().request("PUT", "/v1/collections/people/records/p1",
                                                headers: [("Content-Type", "application/json"), ("Content-Encoding", "identity")], body: body)
        XCTAssertEqual(identity.status, 201, identity.text)
    }

    func testEchoedInputIsCapped() throws {
        let app = try TestApp()
        let long = String(repeating: "a", count: 10_000)
        let list = try app.get("/v1/lists/\(long)")
        XCTAssertEqual(list.slug, "invalid-name")
        let detail: String = try list.problem.value("detail")
        XCTAssertLessThan(detail.count, 300, "detail of \(detail.count) characters")
        XCTAssertTrue(detail.contains(String(repeating: "a", count: 64) + "…"), detail)

        let batch = try app.request("POST", "/v1/collections/people/batch", json: "{\"upsert\":[{\"id\":\"\(long)\"}]}")
        XCTAssertEqual(batch.slug, "invalid-name")
        XCTAssertLessThan(try batch.problem.value("detail", as: String.self).count, 300)
        let member = try app.request("POST", "/v1/lists/people/views", json: "{\"\(long)\":1}")
        XCTAssertEqual(member.slug, "invalid-request")
        XCTAssertLessThan(try member.problem.value("detail", as: String.self).count, 300)
        let view = try app.get("/v1/lists/people/views/\(long)")
        XCTAssertEqual(view.slug, "view-not-found")
        XCTAssertLessThan(try view.problem.value("detail", as: String.self).count, 300)
        let route = try app.get("/v1/\(long)")
        XCTAssertEqual(route.slug, "not-found")
        XCTAssertLessThan(try route.problem.value("detail", as: String.self).count, 300)
        let count = try app.get("/v1/lists/people/sections/0/rows?count=\(long)x")
        XCTAssertEqual(count.slug, "invalid-request")
        XCTAssertLessThan(try count.problem.value("detail", as: String.self).count, 300)
    }

    func testABatchCountsEachUpsertedIdOnceAndTheLastWins() throws {
        let app = try TestApp()
        let answer = try app.request("POST", "/v1/collections/people/batch", json: """
            {"upsert":[{"id":"p1","name":"First","team":"Design"},{"id":"p2","name":"Grace","team":"Design"},
                       {"id":"p1","name":"Last","team":"Design"}]}
            """)
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(try answer.json.value("upserted", as: Int.self), 2, answer.text)
        XCTAssertEqual(try app.get("/v1/collections/people/records/p1").json.value("name", as: String.self), "Last")
        let section: [String: Any] = try app.get("/v1/lists/people/sections/1/rows").json.value("section")
        let rows: [[String: Any]] = try section.value("rows")
        XCTAssertEqual(try rows.map { try $0.value("title", as: String.self) }.sorted(), ["Grace", "Last"])
    }
}
