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
        // Every alphabet character at every position of a block.
        let rising: [UInt8] = (0..<64).map { UInt8($0 * 4) }
        let falling: [UInt8] = (0..<64).map { UInt8(255 - $0 * 4) }
        let all = rising + falling
        XCTAssertEqual(Base64URL.encode(all), reference(all))
    }

    func testDecodeRefusesWhatIsNotUnpaddedBase64URL() {
        XCTAssertNil(Base64URL.decode("AB+C"))  // the standard alphabet's "+"
        XCTAssertNil(Base64URL.decode("QQ=="))  // padding
        XCTAssertNil(Base64URL.decode("Q"))  // a length no byte count encodes to
        XCTAssertNil(Base64URL.decode("QR"))  // non-zero leftover bits
        XCTAssertEqual(Base64URL.decode(""), [])
        XCTAssertEqual(Base64URL.decode("QQ"), [0x41])
    }
}
