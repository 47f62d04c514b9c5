import XCTest
@testable import HTTPServer

/// The query of a request target: `&`-separated items (empty ones skipped), split at the first
/// `=`, names and values percent-decoded with `+` as a space.
final class QueryItemsTests: XCTestCase {
    private func items(_ uri: String) -> [String] {
        Request(method: .get, uri: uri).query.map { "\($0.name)|\($0.value)" }
    }

    func testItemsAreSplitAtAmpersandsAndTheFirstEquals() {
        XCTAssertEqual(items("/p?a=1&&b=2&flag&=v&f=a=b&"), ["a|1", "b|2", "flag|", "|v", "f|a=b"])
        XCTAssertEqual(items("/p?"), [])
        XCTAssertEqual(items("/p"), [])
        XCTAssertEqual(items("/p?q=evelyn"), ["q|evelyn"])
    }

    func testNamesAndValuesArePercentDecodedWithPlusAsSpace() {
        XCTAssertEqual(items("/p?q=two+words&x%2By=%C3%A9%26%3d&filter.team=R%26D"), ["q|two words", "x+y|é&=", "filter.team|R&D"])
    }

    func testMalformedEscapesStayLiteral() {
        XCTAssertEqual(items("/p?a=%zz&b=%4&c=%&d=100%25&e=%41%"), ["a|%zz", "b|%4", "c|%", "d|100%", "e|A%"])
    }

    func testNonASCIIIsKeptAndInvalidUTF8IsReplacedAndTold() {
        XCTAssertEqual(items("/p?q=Émilie&r=%FF"), ["q|Émilie", "r|\u{FFFD}"])
        XCTAssertFalse(Request(method: .get, uri: "/p?q=Émilie&r=%FF").isUTF8)
        XCTAssertFalse(Request(method: .get, uri: "/p%C3?q").isUTF8, "a path segment")
        XCTAssertFalse(Request(method: .get, uri: "/p?%80").isUTF8, "a name")
        XCTAssertTrue(Request(method: .get, uri: "/p%C3%A9?q=%C3%A9&%E2%82%AC=+%25").isUTF8)
    }
}
