@testable import SectionalService
import XCTest

/// The `Link` header of a search page repeats the request's `q` and `filter.FIELD` parameters,
/// percent-encoded byte by byte.
final class LinkEncodingTests: XCTestCase {
    func testUnreservedTextIsKeptAndEveryOtherByteIsEncoded() {
        XCTAssertEqual(ListRoutes.linkEncoded("evelyn"), "evelyn")
        XCTAssertEqual(ListRoutes.linkEncoded("filter.team"), "filter.team")
        XCTAssertEqual(ListRoutes.linkEncoded("A-z_0.9~"), "A-z_0.9~")
        XCTAssertEqual(ListRoutes.linkEncoded("é x&y=z/+"), "%C3%A9%20x%26y%3Dz%2F%2B")
        XCTAssertEqual(ListRoutes.linkEncoded(""), "")
    }
}
