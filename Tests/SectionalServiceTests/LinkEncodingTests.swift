@testable import SectionalService
import XCTest

/// The `Link` header of a search page repeats the request's `q` and `filter.FIELD` parameters,
/// percent-encoded byte by byte.
final class LinkEncodingTests: XCTestCase {
    func testUnreservedTextIsKeptAndEveryOtherByteIsEncoded() {
        XCTAssertEqual(encoded("evelyn"), "evelyn")
        XCTAssertEqual(encoded("filter.team"), "filter.team")
        XCTAssertEqual(encoded("A-z_0.9~"), "A-z_0.9~")
        XCTAssertEqual(encoded("é x&y=z/+"), "%C3%A9%20x%26y%3Dz%2F%2B")
        XCTAssertEqual(encoded(""), "")
    }

    private func encoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        ListRoutes.appendLinkEncoded(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
