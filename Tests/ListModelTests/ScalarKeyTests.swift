import XCTest
@testable import ListModel

/// A scalar's key is its JSON value: numbers by exact value, whatever their spelling.
final class ScalarKeyTests: XCTestCase {
    private func key(_ json: String) throws -> ScalarKey { try XCTUnwrap(ScalarKey(try JSONParser.parse(json))) }

    func testNumbersKeyByTheirExactValue() throws {
        XCTAssertEqual(try key("2.5"), try key("2.50"))
        XCTAssertEqual(try key("2.5"), try key("25e-1"))
        XCTAssertEqual(try key("2"), try key("2.0"))
        XCTAssertEqual(try key("0"), try key("-0"))
        XCTAssertEqual(try key("9007199254740993"), try key("9007199254740993.0"))
        XCTAssertNotEqual(try key("9007199254740992"), try key("9007199254740993.0"), "not through a rounded double")
        XCTAssertNotEqual(try key("2.5"), try key("\"2.5\""), "a number is not a string")
        XCTAssertEqual(try key("1e21"), try key("1000000000000000000000"))
    }
}
