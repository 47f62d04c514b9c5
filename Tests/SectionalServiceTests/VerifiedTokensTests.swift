import ListModel
import XCTest
@testable import SectionalService

/// Verified user tokens are remembered by their exact text, only until they expire, and boundedly.
final class VerifiedTokensTests: XCTestCase {
    func testATokenIsRememberedUntilItExpiresAndOnlyByItsExactText() {
        let tokens = VerifiedTokens()
        let ann = Caller.user(subject: "ann", claims: JSONObject())
        tokens.remember("aaa.bbb.ccc", caller: ann, expiresAt: 100)
        XCTAssertEqual(tokens.caller(for: "aaa.bbb.ccc", now: 99), ann)
        XCTAssertEqual(tokens.caller(for: "aaa.bbb.ccc", now: 99.999), ann)
        XCTAssertNil(tokens.caller(for: "aaa.bbb.ccd", now: 99), "another text is verified afresh")
        XCTAssertNil(tokens.caller(for: "aaa.bbb.ccc", now: 100), "at exp, as the verifier, the token is verified afresh (and refused)")
        XCTAssertNil(tokens.caller(for: "aaa.bbb.ccc", now: 99), "and forgotten")
    }

    /// `String` equality takes U+212A KELVIN SIGN for `K`; the memo compares bytes.
    func testACanonicallyEquivalentSpellingIsNotTheSameToken() {
        let tokens = VerifiedTokens()
        let ann = Caller.user(subject: "ann", claims: JSONObject())
        tokens.remember("aaa.bbb.K", caller: ann, expiresAt: 100)
        XCTAssertEqual("aaa.bbb.\u{212A}", "aaa.bbb.K", "Swift compares text by canonical equivalence")
        XCTAssertNil(tokens.caller(for: "aaa.bbb.\u{212A}", now: 99), "other bytes are verified afresh")
        XCTAssertEqual(tokens.caller(for: "aaa.bbb.K", now: 99), ann)
        let long = String(repeating: "x", count: 150) + ".sig"
        tokens.remember(Substring(long), caller: ann, expiresAt: 100)
        XCTAssertEqual(tokens.caller(for: Substring(long), now: 99), ann)
        XCTAssertNil(tokens.caller(for: Substring("y" + long.dropFirst()), now: 99), "a token differing before its last 32 bytes")
    }

    func testTheCacheStaysWithinItsCapacity() {
        let tokens = VerifiedTokens()
        for n in 0..<(VerifiedTokens.capacity + 10) {
            tokens.remember(Substring("token\(n)"), caller: .user(subject: "u\(n)", claims: JSONObject()), expiresAt: 1e12)
        }
        XCTAssertLessThanOrEqual(tokens.count, VerifiedTokens.capacity)
    }
}
