import Identity
import TestKeys
import XCTest

/// Strict unpadded base64url.
final class Base64URLTests: XCTestCase {
    func testRoundTripsEveryLength() {
        let bytes = (0..<64).map { UInt8(truncatingIfNeeded: $0 * 37 + 250) }
        for count in 0...bytes.count {
            let text = Base64URL.encode(bytes.prefix(count))
            XCTAssertFalse(text.contains("=") || text.contains("+") || text.contains("/"))
            XCTAssertEqual(Base64URL.decode(text), Array(bytes.prefix(count)))
        }
        XCTAssertEqual(Base64URL.encode([0xFB, 0xFF]), "-_8")
    }

    func testNonCanonicalTextIsRefused() {
        XCTAssertNil(Base64URL.decode("QQ=="), "padding")
        XCTAssertNil(Base64URL.decode("-_+/"), "standard alphabet")
        XCTAssertNil(Base64URL.decode("QUJD RA"), "whitespace")
        XCTAssertNil(Base64URL.decode("QUJDR"), "a length of 1 modulo 4")
        XCTAssertNil(Base64URL.decode("QR"), "unused bits set")
        XCTAssertNil(Base64URL.decode("QUF"), "unused bits set")
        XCTAssertEqual(Base64URL.decode("QQ"), [0x41])
        XCTAssertEqual(Base64URL.decode("QUE"), [0x41, 0x41])
    }
}
