import Foundation
import TestSupport
import XCTest

final class ListEndpointTests: XCTestCase {
    private var app: TestApp!

    override func setUpWithError() throws {
        app = try TestApp()
        try app.seed([("p1", "Ada", "Design"), ("p2", "Grace", "Design"), ("p3", "Alan", "Engineering"),
                      ("p4", "bot Deploy", "Engineering"), ("p5", "Old Timer", "Archived")])
    }

    func testIndexAndOutline() throws {
        let index = try app.get("/v1/lists")
        XCTAssertEqual(index.status, 200)
        let lists = try index.json["lists"] as? [[String: Any]]
        XCTAssertEqual(lists?.first?["name"] as? String, "people")
        XCTAssertEqual(lists?.first?["rowCount"] as? Int, 5, "Archived is hidden by default: 1 pinned + 4 visible")

        let outline = try app.get("/v1/lists/people")
        XCTAssertEqual(outline.status, 200)
        XCTAssertEqual(outline.header("Content-Type"), "application/json; charset=utf-8")
        let json = try outline.json
        XCTAssertEqual(json["sectionCount"] as? Int, 4)
        XCTAssertEqual(json["totalRowCount"] as? Int, 6)
        XCTAssertEqual(json["tagCount"] as? Int, 3 + 2 * 4 + 1)
        let sections: [[String: Any]] = try json.value("sections")
        guard sections.count == 4 else { return XCTFail("\(sections)") }
        XCTAssertEqual(sections.map { $0["key"] as? String }, ["pinned", "Archived", "Design", "Engineering"])
        XCTAssertEqual(sections[1]["hidden"] as? Bool, true)
        XCTAssertEqual(sections[1]["rowCount"] as? Int, 0)
        XCTAssertEqual(sections[1]["totalRowCount"] as? Int, 1)
        XCTAssertEqual(sections[2]["firstTag"] as? Int, 5, "the hidden Archived section still consumes tags 3-4")
        XCTAssertEqual(sections[2]["title"] as? String, "Design (2)")

        let head = try app.request("HEAD", "/v1/lists/people")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), outline.header("Content-Length"))
        XCTAssertTrue(head.body.isEmpty)
    }

    func testPagesWalkEveryVisibleRowOnceWithLinks() throws {
        var target = "/v1/lists/people/rows?pageSize=2"
        var ids: [String] = []
        var newSections: [String] = []
        var pages = 0
        while true {
            let answer = try app.get(target)
            XCTAssertEqual(answer.status, 200, answer.text)
            pages += 1
            let json = try answer.json
            for section in try json.value("sections", as: [[String: Any]].self) {
                if (section["rowOffset"] as? Int) == 0 { newSections.append(try section.value("key")) }
                ids += try section.value("rows", as: [[String: Any]].self).map { try $0.value("id", as: String.self) }
            }
            XCTAssertEqual(json["itemsBefore"] as? Int, ids.count - ((json["sections"] as? [[String: Any]])?.reduce(0) { $0 + (($1["rows"] as? [Any])?.count ?? 0) } ?? 0))
            guard let token = json["nextPageToken"] as? String else {
                XCTAssertNil(answer.header("Link"))
                XCTAssertEqual(json["itemsAfter"] as? Int, 0)
                break
            }
            XCTAssertEqual(answer.header("Link"), "</v1/lists/people/rows?pageToken=\(token)&pageSize=2>; rel=\"next\"")
            target = "/v1/lists/people/rows?pageSize=2&pageToken=\(token)"
        }
        XCTAssertEqual(ids, ["me", "p1", "p2", "p3", "p4"])
        XCTAssertEqual(pages, 3)
        XCTAssertEqual(newSections, ["pinned", "Archived", "Design", "Engineering"])
    }

    /// A cached page keeps its `Link`, but each request's link still says `pageSize` as that
    /// request spelled it (or not at all), and names its view.
    func testACachedPageLinksAsEachRequestSpellsIt() throws {
        for _ in 0..<2 {  // the second round answers from the cache
            let plain = try app.get("/v1/lists/people/rows?pageSize=2")
            let token = try plain.json.value("nextPageToken", as: String.self)
            XCTAssertEqual(plain.header("Link"), "</v1/lists/people/rows?pageToken=\(token)&pageSize=2>; rel=\"next\"")
            let padded = try app.get("/v1/lists/people/rows?pageSize=02")
            XCTAssertEqual(padded.header("Link"), "</v1/lists/people/rows?pageToken=\(token)&pageSize=02>; rel=\"next\"")
            XCTAssertEqual(padded.body, plain.body, "one cached answer")
        }
        let unsized = try app.get("/v1/lists/people/rows")
        XCTAssertNil(unsized.header("Link"), "the default page size holds every row")
        let view = try app.request("POST", "/v1/lists/people/views")
        guard view.status == 201, let id = try view.json["view"] as? String else { return XCTFail(view.text) }
        for _ in 0..<2 {
            let page = try app.get("/v1/lists/people/rows?pageSize=2&view=\(id)")
            let token = try page.json.value("nextPageToken", as: String.self)
            XCTAssertEqual(page.header("Link"), "</v1/lists/people/rows?pageToken=\(token)&pageSize=2&view=\(id)>; rel=\"next\"")
        }
    }

    func testPageErrors() throws {
        XCTAssertEqual(try app.get("/v1/lists/people/rows?pageSize=-1").slug, "invalid-page-size")
        XCTAssertEqual(try app.get("/v1/lists/people/rows?pageSize=abc").status, 400)
        XCTAssertEqual(try app.get("/v1/lists/people/rows?pageToken=garbage").slug, "invalid-page-token")
        XCTAssertEqual(try app.get("/v1/lists/people/rows?pageSize=1&pageToken=").text, try app.get("/v1/lists/people/rows?pageSize=1").text,
                       "an empty token is the first page (AIP-158)")
        let first = try app.get("/v1/lists/people/rows?pageSize=1").json
        let token = try XCTUnwrap(first["nextPageToken"] as? String)
        let view = try app.createView()
        let other = try app.get("/v1/lists/people/rows?pageSize=1&pageToken=\(token)&view=\(view)")
        XCTAssertEqual(other.slug, "invalid-page-token", "a token is bound to its view")
        XCTAssertEqual(try app.get("/v1/lists/people/rows?pageSize=0").json["nextPageToken"] as? String, nil, "0 means 50")
        let repeated = try app.get("/v1/lists/people/rows?pageSize=2&view=\(view)&pageSize=5")
        XCTAssertEqual(repeated.status, 400)
        XCTAssertEqual(repeated.slug, "invalid-request", "which of two page sizes is meant is not for the server to guess")
        XCTAssertEqual(repeated.text, #"{"type":"/problems/invalid-request","title":"Invalid request","status":400,"#
                       + #""detail":"The query parameter pageSize is given more than once; give it once."}"#)
    }

    func testATargetNotUTF8OnceDecodedIsRefused() throws {
        // Read with U+FFFD in place of %FF, `q` would search for what the client did not send.
        for target in ["/v1/lists/people/rows?q=%FF", "/v1/lists/people/rows?filter.team=%C3%28", "/v1/lists/%FF/rows",
                       "/v1/lists/people?%E2%82=1", "/nowhere/%FF"] {
            let answer = try app.get(target)
            XCTAssertEqual(answer.status, 400, target)
            XCTAssertEqual(answer.text, #"{"type":"/problems/invalid-request","title":"Invalid request","status":400,"#
                           + #""detail":"The request target is not UTF-8 once percent-decoded (%FF, for one, is not); percent-encode UTF-8 bytes only."}"#, target)
        }
        XCTAssertEqual(try app.get("/v1/lists/people/rows?pageSize=%32").status, 200, "an escape of UTF-8 is read")
        XCTAssertEqual(try app.get("/healthz").status, 200, "and the server goes on")
    }

    func testAnEmptyPathSegmentIsAnEmptyNameNotDropped() throws {
        // Dropped, `/v1/lists//rows` was the list named `rows`, and `…/definition` its definition.
        for target in ["/v1/lists//rows", "/v1/lists//definition", "/v1/lists/"] {
            let answer = try app.get(target)
            XCTAssertEqual(answer.status, 400, target)
            XCTAssertEqual(answer.slug, "invalid-name", target)
            XCTAssertTrue(answer.text.contains(#"'' is not a valid list name"#), answer.text)
        }
        XCTAssertEqual(try app.request("PUT", "/v1/collections/people/records/", json: "{}").slug, "invalid-name")
        for target in ["//v1/lists", "/healthz/", "/v1/lists/people//rows"] {
            XCTAssertEqual(try app.get(target).slug, "not-found", target)
        }
        XCTAssertEqual(try app.get("/v1/lists/people/rows").status, 200)
    }

    func testSectionRanges() throws {
        let range = try app.get("/v1/lists/people/sections/2/rows?start=1&count=5")
        XCTAssertEqual(range.status, 200)
        let section = try range.json["section"] as? [String: Any]
        XCTAssertEqual((section?["rows"] as? [[String: Any]])?.map { $0["id"] as? String }, ["p2"])
        let past = try app.get("/v1/lists/people/sections/2/rows?start=10").json["section"] as? [String: Any]
        XCTAssertEqual((past?["rows"] as? [Any])?.count, 0)
        let hidden = try app.get("/v1/lists/people/sections/1/rows").json["section"] as? [String: Any]
        XCTAssertEqual((hidden?["rows"] as? [Any])?.count, 0, "hidden sections serve no rows")
        XCTAssertEqual(try app.get("/v1/lists/people/sections/9/rows").slug, "section-not-found")
        XCTAssertEqual(try app.get("/v1/lists/people/sections/x/rows").slug, "invalid-request")
        // Whole numbers beyond 64 bits are whole numbers all the same: past every end.
        let huge = "99999999999999999999999"
        XCTAssertEqual(try app.get("/v1/lists/people/sections/\(huge)/rows").slug, "section-not-found")
        XCTAssertEqual(try app.get("/v1/lists/people/sections/-\(huge)/rows").slug, "section-not-found")
        let farPast = try app.get("/v1/lists/people/sections/2/rows?start=\(huge)").json["section"] as? [String: Any]
        XCTAssertEqual((farPast?["rows"] as? [Any])?.count, 0)
        XCTAssertEqual(try app.get("/v1/lists/people/sections/2/rows?start=-1").slug, "invalid-request")
        XCTAssertEqual(try app.get("/v1/lists/people/sections/2/rows?start=%2B1").slug, "invalid-request")
        XCTAssertEqual(try app.get("/v1/lists/people/sections/-/rows").slug, "invalid-request")
    }

    func testLookUps() throws {
        XCTAssertEqual(try app.get("/v1/lists/people/sections?type=team").json["sections"] as? [Int], [1, 2, 3])
        XCTAssertEqual(try app.get("/v1/lists/people/sections?type=none").json["sections"] as? [Int], [])
        XCTAssertEqual(try app.get("/v1/lists/people/sections").slug, "invalid-request")

        let bot = try app.get("/v1/lists/people/index-path?sectionType=team&rowType=bot").json
        XCTAssertEqual(bot["indexPath"] as? [String: Int], ["section": 3, "row": 1])
        XCTAssertEqual((bot["row"] as? [String: Any])?["title"] as? String, "bot Deploy (bot)")
        XCTAssertEqual(try app.get("/v1/lists/people/index-path?sectionType=team&rowType=robot").slug, "index-path-not-found")
        // Sections and rows without a type have the type "": `type=` finds them.
        try app.request("PUT", "/v1/lists/untyped/definition",
                        json: #"{"sections":[{"key":"a","rows":[{"id":"r"}]},{"key":"b","type":"t","rows":[{"id":"s","type":"x"}]}]}"#)
            .expect(201)
        XCTAssertEqual(try app.get("/v1/lists/untyped/sections?type=").json["sections"] as? [Int], [0])
        XCTAssertEqual(try app.get("/v1/lists/untyped/index-path?sectionType=&rowType=").json["indexPath"] as? [String: Int],
                       ["section": 0, "row": 0])
        XCTAssertEqual(try app.get("/v1/lists/untyped/index-path?sectionType=t").slug, "invalid-request", "rowType is still required")

        let tag = try app.get("/v1/lists/people/tags/4").json
        XCTAssertEqual(tag["tag"] as? Int, 4)
        XCTAssertEqual(tag["hidden"] as? Bool, true, "tag 4 is the Archived row's second tag")
        XCTAssertEqual((tag["row"] as? [String: Any])?["id"] as? String, "p5")
        XCTAssertEqual(try app.get("/v1/lists/people/tags/12").slug, "tag-not-found")
        XCTAssertEqual(try app.get("/v1/lists/people/tags/-1").slug, "tag-not-found")
        XCTAssertEqual(try app.get("/v1/lists/people/tags/two").slug, "invalid-request")
        let huge = try app.get("/v1/lists/people/tags/99999999999999999999999")
        XCTAssertEqual(huge.slug, "tag-not-found")
        XCTAssertEqual(try huge.problem["detail"] as? String, "No row holds tag 99999999999999999999999.", "the tag as sent, not Int.max")
        XCTAssertEqual(try app.get("/v1/lists/people/tags/9223372036854775807").slug, "tag-not-found")
        let section = try app.get("/v1/lists/people/sections/99999999999999999999/rows")
        XCTAssertEqual(try section.problem["detail"] as? String, "Section 99999999999999999999 does not exist; the list has 4 sections.")

        let row = try app.get("/v1/lists/people/rows/p3").json
        XCTAssertEqual(row["indexPath"] as? [String: Int], ["section": 3, "row": 0])
        XCTAssertEqual((row["row"] as? [String: Any])?["accessibilityIdentifier"] as? String, "cell_3_0")
        XCTAssertEqual(try app.get("/v1/lists/people/rows/nobody").slug, "row-not-found")
        XCTAssertEqual(try app.get("/v1/lists/people/rows/.bad").slug, "invalid-name")
    }

    func testUnknownThingsAnswerTheirSlugs() throws {
        XCTAssertEqual(try app.get("/v1/lists/nothing").slug, "list-not-found")
        XCTAssertEqual(try app.get("/v1/lists/nothing").status, 404)
        XCTAssertEqual(try app.get("/v1/lists/-bad").slug, "invalid-name")
        XCTAssertEqual(try app.get("/v1/lists/people?view=nope").slug, "view-not-found")
        XCTAssertEqual(try app.get("/v2/anything").slug, "not-found")
        let wrong = try app.request("DELETE", "/v1/lists/people")
        XCTAssertEqual(wrong.slug, "method-not-allowed")
        XCTAssertEqual(wrong.header("Allow"), "GET, HEAD, OPTIONS")
        XCTAssertEqual(try app.request("OPTIONS", "/v1/lists/people").header("Allow"), "GET, HEAD, OPTIONS", "as the 405 says")
        XCTAssertEqual(wrong.header("Content-Type"), "application/problem+json")
    }

    func testHealthAndReadiness() throws {
        let health = try app.get("/healthz")
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(health.text, #"{"status":"ok"}"#)
        let ready = try app.get("/readyz")
        XCTAssertEqual(ready.status, 200)
        XCTAssertEqual(ready.text, #"{"status":"ready"}"#)
    }
}
