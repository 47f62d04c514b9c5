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
        XCTAssertEqual(tokens.caller(for: "aaa.bbb.ccc", now: 100), ann)
        XCTAssertNil(tokens.caller(for: "aaa.bbb.ccd", now: 99), "another text is verified afresh")
        XCTAssertNil(tokens.caller(for: "aaa.bbb.ccc", now: 101), "an expired token is verified afresh")
        XCTAssertNil(tokens.caller(for: "aaa.bbb.ccc", now: 99), "and forgotten")
    }

    func testTheCacheStaysWithinItsCapacity() {
        let tokens = VerifiedTokens()
        for n in 0..<(VerifiedTokens.capacity + 10) {
            tokens.remember(Substring("token\(n)"), caller: .user(subject: "u\(n)", claims: JSONObject()), expiresAt: 1e12)
        }
        XCTAssertLessThanOrEqual(tokens.count, VerifiedTokens.capacity)
    }
}
