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

    /// Building, patching and comparing an object of many members is linear: with a scan per
    /// member, this test's 100,000 members (and as many new ones) took many minutes; a 1 MB
    /// body of 130,000 members held the writer for three. No time is asserted: the test simply
    /// completes, in about two seconds in a debug build.
    func testObjectsOfManyMembersAreBuiltAndPatchedInOnePass() throws {
        let n = 100_000
        let names = (0..<n).map { "m\($0)" }
        let members = names.enumerated().map { (key: $0.element, value: JSONValue.int(Int64($0.offset))) }
        let object = JSONObject(members + [(key: "m7", value: "again")])
        XCTAssertEqual(object.count, n)
        XCTAssert(object.keys == names, "a later duplicate replaces the value in place")
        XCTAssertEqual(object["m7"], "again")
        XCTAssertEqual(object["m99999"], 99_999)

        // Remove the even members, change the odd ones, append as many new ones.
        var patch: [JSONObject.Member] = []
        for (i, name) in names.enumerated() { patch.append((key: name, value: i % 2 == 0 ? .null : "odd")) }
        for i in 0..<n { patch.append((key: "new\(i)", value: .int(Int64(i)))) }
        let patched = try XCTUnwrap(MergePatch.apply(.object(JSONObject(patch)), to: .object(object)).objectValue)
        let odd = names.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        XCTAssertEqual(patched.count, n + n / 2)
        XCTAssert(patched.keys == odd + (0..<n).map { "new\($0)" }, "kept members keep their places, new ones are appended")
        XCTAssertEqual(patched["m1"], "odd")
        XCTAssertNil(patched["m2"])
        XCTAssertEqual(patched["new7"], 7)
        let reversed = JSONObject(patched.members.reversed())
        XCTAssertEqual(patched, reversed, "equal in any order")
        XCTAssertNotEqual(patched, JSONObject(reversed.members.dropFirst() + [(key: "other", value: 0)]))
    }
}
