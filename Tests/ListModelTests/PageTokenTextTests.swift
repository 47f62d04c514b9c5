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
}
