import ListModel
import XCTest

/// A `JSONObject` tells member names apart by code points, as the parser does: "café" with a
/// precomposed é (U+00E9) and with e and a combining acute (U+0065 U+0301) are two members,
/// though Swift's `String` calls the two names equal.
final class JSONObjectTests: XCTestCase {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    func testCanonicallyEquivalentNamesAreTwoMembers() throws {
        XCTAssertEqual(Self.composed, Self.decomposed, "Swift's String calls them equal")
        let object = JSONObject([(key: Self.composed, value: "nfc"), (key: Self.decomposed, value: "nfd")])
        XCTAssertEqual(object.count, 2, "building an object keeps both")
        XCTAssertEqual(object[Self.composed], "nfc")
        XCTAssertEqual(object[Self.decomposed], "nfd")
        XCTAssertEqual(object, try JSONParser.parse(#"{"caf\u00e9":"nfc","cafe\u0301":"nfd"}"#).objectValue)

        var edited = object
        edited[Self.decomposed] = nil
        XCTAssertEqual(edited.keys.map { Array($0.unicodeScalars) }, [Array(Self.composed.unicodeScalars)], "removing one keeps the other")
        edited[Self.decomposed] = "again"
        XCTAssertEqual(edited.count, 2, "setting one does not replace the other")
        XCTAssertEqual(edited[Self.composed], "nfc")

        XCTAssertNotEqual(JSONObject([(key: Self.composed, value: 1)]), JSONObject([(key: Self.decomposed, value: 1)]))
    }

    /// Names of the same UTF-8 length (the Angstrom sign U+212B and A with a combining ring,
    /// 3 bytes each) and names too long for a small string (compared by their bytes).
    func testLookUpsCompareTheBytesOfEqualLengthNames() {
        let angstrom = JSONObject([(key: "\u{212B}", value: 1)])
        XCTAssertEqual("\u{212B}", "A\u{30A}", "Swift's String calls them equal")
        XCTAssertNil(angstrom["A\u{30A}"])
        XCTAssertEqual(angstrom["\u{212B}"], 1)

        let prefix = "a name longer than fifteen bytes, "
        let long = JSONObject([(key: prefix + Self.composed, value: "nfc"), (key: prefix + Self.decomposed, value: "nfd")])
        XCTAssertEqual(long.count, 2)
        XCTAssertEqual(long[String(decoding: Array((prefix + Self.decomposed).utf8), as: UTF8.self)], "nfd")
        XCTAssertEqual(long[String(decoding: Array((prefix + Self.composed).utf8), as: UTF8.self)], "nfc")
    }

    /// A template's or a filter's field path looks up the member of exactly its name.
    func testFieldPathsCompareByCodePoints() throws {
        let object = JSONObject([(key: Self.composed, value: "nfc"), (key: Self.decomposed, value: "nfd")])
        let composed = try XCTUnwrap(FieldPath(Self.composed)), decomposed = try XCTUnwrap(FieldPath(Self.decomposed))
        XCTAssertEqual(composed.lookup(in: object), "nfc")
        XCTAssertEqual(decomposed.lookup(in: object), "nfd")
        XCTAssertNotEqual(composed, decomposed)
        XCTAssertEqual(Set([composed, decomposed, FieldPath(Self.composed)!]).count, 2)
    }
}
