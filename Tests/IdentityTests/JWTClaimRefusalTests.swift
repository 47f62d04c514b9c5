import Foundation
import Identity
import TestKeys
import XCTest

/// Verified tokens whose claims are refused: times, issuer, audience, subject.
final class JWTClaimRefusalTests: XCTestCase {
    private let now = Tokens.now.timeIntervalSince1970

    func testExpiryPassedBeyondTheLeewayIsRefused() throws {
        let verifier = try Tokens.verifier()
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["exp": now - 60])), .expired)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["exp": now - 86400])), .expired)
        XCTAssertRefused(verifier, Tokens.signed(by: .rsa, kid: "rsa-1", claims: Tokens.claims(["exp": now - 61])), .expired)
        let strict = try JWTVerifier(hs256Secret: Tokens.secret, leewaySeconds: 0)
        XCTAssertRefused(strict, Tokens.hs256(claims: Tokens.claims(["exp": now])), .expired)
        XCTAssertEqual(try strict.verify(Tokens.hs256(claims: Tokens.claims(["exp": now + 1])), now: Tokens.now).subject, "alice")
    }

    func testNotBeforeBeyondTheLeewayIsRefused() throws {
        let verifier = try Tokens.verifier()
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["nbf": now + 61])), .notYetValid)
        XCTAssertRefused(verifier, Tokens.signed(by: .ec, kid: "ec-1", claims: Tokens.claims(["nbf": now + 3600])), .notYetValid)
    }

    func testMissingExpiryIsRefused() throws {
        XCTAssertRefused(try Tokens.verifier(), Tokens.hs256(claims: Tokens.claims(removing: ["exp"])), .missingExpiry)
    }

    func testTimeClaimsThatAreNotNumbersAreRefused() throws {
        let verifier = try Tokens.verifier()
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["exp": "\(now + 3600)"])), .invalidTimeClaim("exp"))
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["exp": true])), .invalidTimeClaim("exp"))
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["nbf": NSNull()])), .invalidTimeClaim("nbf"))
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["iat": "yesterday"])), .invalidTimeClaim("iat"))
    }

    func testIssuerMismatchIsRefused() throws {
        let verifier = try Tokens.verifier()
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["iss": "https://evil.example"])), .issuerMismatch)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["iss": "https://id.example.com/"])), .issuerMismatch)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(removing: ["iss"])), .issuerMismatch)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["iss": ["https://id.example.com"]])), .issuerMismatch)
    }

    func testAudienceMismatchIsRefused() throws {
        let verifier = try Tokens.verifier()
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["aud": "billing"])), .audienceMismatch)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["aud": ["billing", "search"]])), .audienceMismatch)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["aud": []])), .audienceMismatch)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["aud": ["sectional", 7]])), .audienceMismatch)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(removing: ["aud"])), .audienceMismatch)
    }

    /// The issuer and audience compare by code points: a Kelvin sign is not a K, though Swift's
    /// `==` takes the two as one.
    func testIssuerAndAudienceCompareByCodePoints() throws {
        let verifier = try JWTVerifier(hs256Secret: Tokens.secret, keySet: nil, issuer: "https://id.example.com/Kitchen",
                                       audience: "Kitchen", leewaySeconds: 60)
        let kelvin = "\u{212A}itchen"
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["iss": "https://id.example.com/" + kelvin, "aud": "Kitchen"])),
                         .issuerMismatch)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["iss": "https://id.example.com/Kitchen", "aud": kelvin])),
                         .audienceMismatch)
        XCTAssertNoThrow(try verifier.verify(Tokens.hs256(claims: Tokens.claims(["iss": "https://id.example.com/Kitchen", "aud": "Kitchen"])),
                                             now: Tokens.now))
    }

    func testSubjectThatIsNotAStringIsRefused() throws {
        let verifier = try Tokens.verifier()
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(removing: ["sub"])), .missingSubject)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["sub": 42])), .missingSubject)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["sub": ["alice"]])), .missingSubject)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["sub": NSNull()])), .missingSubject)
        XCTAssertRefused(verifier, Tokens.hs256(claims: Tokens.claims(["sub": ""])), .missingSubject)
    }
}
