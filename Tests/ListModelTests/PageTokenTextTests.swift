import Foundation
@testable import ListModel
import XCTest

/// The base64url text of page tokens against Foundation's base64 (alphabet swapped, padding
/// dropped), for every length up to a few blocks.
final class PageTokenTextTests: XCTestCase {
    private func reference(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    func testEncodeMatchesFoundationAndDecodesBack() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            for _ in 0..<20 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let text = Base64URL.encode(bytes)
                XCTAssertEqual(text, reference(bytes), "length \(length)")
                XCTAssertEqual(Base64URL.decode(text), bytes, "length \(length)")
            }
        }
        // Every byte value at each of a block's three positions.
        for shift in 0..<3 {
            let bytes = [UInt8](repeating: 0, count: shift) + (0...255).map { UInt8($0) }
            XCTAssertEqual(Base64URL.encode(bytes), reference(bytes), "shift \(shift)")
            XCTAssertEqual(Base64URL.decode(reference(bytes)), bytes, "shift \(shift)")
        }
    }

    func testDecodeRefusesWhatIsNotUnpaddedBase64URL() {
        XCTAssertNil(Base64URL.decode("AB+C"))  // the standard alphabet's "+"
        XCTAssertNil(Base64URL.decode("QQ=="))  // padding
        XCTAssertNil(Base64URL.decode("Q"))  // a length no byte count encodes to
        XCTAssertNil(Base64URL.decode("QR"))  // non-zero leftover bits
        XCTAssertNil(Base64URL.decode("QUJD-_Q+"))  // outside the alphabet in a later group
        XCTAssertNil(Base64URL.decode("QUJDQ+"))  // … in a last partial group
        XCTAssertNil(Base64URL.decode("QUJDR"))  // five characters
        XCTAssertNil(Base64URL.decode("QUF"))  // non-zero leftover bits after two bytes
        XCTAssertEqual(Base64URL.decode("QUE"), [0x41, 0x41])
        XCTAssertEqual(Base64URL.decode(""), [])
        XCTAssertEqual(Base64URL.decode("QQ"), [0x41])
    }

    /// A token's strings: ASCII and other UTF-8 read back as written; bytes that are not UTF-8
    /// refuse the token, checksum or not.
    func testATokensStringsAreUTF8OrTheTokenIsRefused() throws {
        let binding = PageBinding(list: "l", view: nil)
        func token(key: [UInt8]) -> String {
            var b: [UInt8] = [2]
            for k in 0..<8 { b.append(UInt8(truncatingIfNeeded: binding.hash >> (8 * UInt64(k)))) }
            b += [0, 0, UInt8(key.count)] + key + [0, 1, UInt8(ascii: "x")]   // spec 0, not cut, key, no sort values, id "x"
            let c = PageToken.checksum(b)
            for k in 0..<4 { b.append(UInt8(truncatingIfNeeded: c >> (8 * UInt32(k)))) }
            return Base64URL.encode(b)
        }
        XCTAssertEqual(try PageToken.decode(token(key: Array("Engineering".utf8)), binding: binding).rawKey, "Engineering")
        XCTAssertEqual(try PageToken.decode(token(key: Array("Größe".utf8)), binding: binding).rawKey, "Größe")
        XCTAssertEqual(try PageToken.decode(token(key: Array("Engineering".utf8)), binding: binding).rowID, "x")
        for bad: [UInt8] in [[0xFF], [0x41, 0xC3], [0xED, 0xA0, 0x80]] {   // not UTF-8, cut short, a surrogate
            XCTAssertThrowsError(try PageToken.decode(token(key: bad), binding: binding), "\(bad)") {
                XCTAssertEqual($0 as? PageTokenError, .malformed)
            }
        }
    }
}
