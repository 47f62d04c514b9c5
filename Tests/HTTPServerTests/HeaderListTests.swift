import HTTPServer
import XCTest

/// `HTTPHeaders.addToList`: a list field's value joins its only field, else gets a field of its own.
final class HeaderListTests: XCTestCase {
    private func fields(_ headers: HTTPHeaders, _ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    func testAValueJoinsTheOnlyFieldOfItsName() {
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("vary", "Authorization")])
        headers.addToList("Vary", "Accept-Encoding")
        XCTAssertEqual(fields(headers, "Vary"), ["Authorization, Accept-Encoding"])
        XCTAssertEqual(headers.count, 2)
    }

    func testAValueGetsItsOwnFieldWhenThereIsNoneOrSeveral() {
        var none = HTTPHeaders([("Content-Type", "application/json")])
        none.addToList("Vary", "Accept-Encoding")
        XCTAssertEqual(fields(none, "Vary"), ["Accept-Encoding"])

        var several = HTTPHeaders([("Vary", "Accept-Language"), ("Vary", "Authorization")])
        several.addToList("Vary", "Accept-Encoding")
        XCTAssertEqual(fields(several, "Vary"), ["Accept-Language", "Authorization", "Accept-Encoding"])
    }
}
