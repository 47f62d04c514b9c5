import XCTest
import HTTPServer

/// How a request target is split into path segments and query items (scanned byte by byte over
/// the target's UTF-8).
final class RequestTargetTests: XCTestCase {
    func testSegmentsArePercentDecodedOneByOneAndEmptyOnesKept() {
        let request = Request(method: .get, uri: "//v1/lists/caf%C3%A9/rows/a%2Fb/x+y/?pageSize=5")
        XCTAssertEqual(request.pathSegments, ["", "v1", "lists", "café", "rows", "a/b", "x+y", ""])
        XCTAssertEqual(request.rawPath, "//v1/lists/caf%C3%A9/rows/a%2Fb/x+y/")
        XCTAssertEqual(Request(method: .get, uri: "/v1/lists//rows").pathSegments, ["v1", "lists", "", "rows"])
        XCTAssertEqual(Request(method: .get, uri: "*").pathSegments, ["*"])
    }

    func testThePathEndsAtTheFirstQuestionMark() {
        XCTAssertEqual(Request(method: .get, uri: "/a/b").rawPath, "/a/b")
        XCTAssertEqual(Request(method: .get, uri: "/caf\u{E9}?x=?y").rawPath, "/caf\u{E9}")
        XCTAssertEqual(Request(method: .get, uri: "?x").rawPath, "")
    }

    func testQueryItemsKeepOrderDecodeBothPartsAndTakePlusAsASpace() {
        let request = Request(method: .get, uri: "/v1/lists/l/rows?q=ada+l%C3%B6velace&&filter.team=R%26D&flag&=v&pageSize=50&q=second")
        XCTAssertEqual(request.query.map(\.name), ["q", "filter.team", "flag", "", "pageSize", "q"])
        XCTAssertEqual(request.query.map(\.value), ["ada lövelace", "R&D", "", "v", "50", "second"])
        XCTAssertEqual(request.query("q"), "ada lövelace", "the first of a repeated parameter")
        XCTAssertNil(request.query("view"))
    }

    func testTargetsWithoutQueryOrPath() {
        XCTAssertEqual(Request(method: .get, uri: "/").pathSegments, [])
        XCTAssertEqual(Request(method: .get, uri: "").pathSegments, [])
        XCTAssertTrue(Request(method: .get, uri: "/healthz").query.isEmpty)
        let bare = Request(method: .get, uri: "/a?")
        XCTAssertEqual(bare.pathSegments, ["a"])
        XCTAssertTrue(bare.query.isEmpty)
        let malformed = Request(method: .get, uri: "/a%2?x=%zz%4")
        XCTAssertEqual(malformed.pathSegments, ["a%2"], "an incomplete escape stays as sent")
        XCTAssertEqual(malformed.query.first?.value, "%zz%4")
    }
}
