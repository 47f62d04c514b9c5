import Foundation
import Identity
import TestKeys
import XCTest

/// Tokens the verifier accepts, and the claims it returns.
final class JWTAcceptanceTests: XCTestCase {
    func testHS256TokenIsAccepted() throws {
        let claims = try Tokens.verifier().verify(Tokens.hs256(), now: Tokens.now)
        XCTAssertEqual(claims.subject, "alice")
        XCTAssertEqual(claims.algorithm, .hs256)
        XCTAssertEqual(claims.issuer, "https://id.example.com")
        XCTAssertEqual(claims.audience, ["sectional"])
        XCTAssertEqual(claims.expiresAt, Tokens.now.addingTimeInterval(3600))
    }

    func testRS256TokenIsAcceptedByItsKid() throws {
        let claims = try Tokens.verifier().verify(Tokens.signed(by: .rsa, kid: "rsa-1"), now: Tokens.now)
        XCTAssertEqual(claims.subject, "alice")
        XCTAssertEqual(claims.algorithm, .rs256)
    }

    func testES256TokenIsAcceptedByItsKid() throws {
        let claims = try Tokens.verifier().verify(Tokens.signed(by: .ec, kid: "ec-1"), now: Tokens.now)
        XCTAssertEqual(claims.subject, "alice")
        XCTAssertEqual(claims.algorithm, .es256)
    }

    func testOneKeySetIsUsedWithoutKid() throws {
        for key in [TestKey.rsa, TestKey.ec] {
            let keySet = try JSONWebKeySet(json: Tokens.jwks([(key, nil)]))
            let verifier = try JWTVerifier(keySet: keySet)
            XCTAssertEqual(try verifier.verify(Tokens.signed(by: key, kid: nil), now: Tokens.now).subject, "alice")
        }
    }

    func testAudienceMayBeAnArray() throws {
        let token = Tokens.hs256(claims: Tokens.claims(["aud": ["billing", "sectional"]]))
        XCTAssertEqual(try Tokens.verifier().verify(token, now: Tokens.now).audience, ["billing", "sectional"])
    }

    func testExpiryAndNotBeforeWithinTheLeewayAreAccepted() throws {
        let now = Tokens.now.timeIntervalSince1970
        let verifier = try Tokens.verifier()
        let justExpired = Tokens.hs256(claims: Tokens.claims(["exp": now - 59]))
        XCTAssertEqual(try verifier.verify(justExpired, now: Tokens.now).subject, "alice")
        let almostValid = Tokens.hs256(claims: Tokens.claims(["nbf": now + 60]))
        XCTAssertEqual(try verifier.verify(almostValid, now: Tokens.now).notBefore, Tokens.now.addingTimeInterval(60))
    }

    func testIssuerAndAudienceAreFreeWhenNotConfigured() throws {
        let verifier = try JWTVerifier(hs256Secret: Tokens.secret)
        let token = Tokens.hs256(claims: Tokens.claims(["iss": "https://elsewhere.example"], removing: ["aud"]))
        let claims = try verifier.verify(token, now: Tokens.now)
        XCTAssertEqual(claims.issuer, "https://elsewhere.example")
        XCTAssertEqual(claims.audience, [])
    }

    func testVerifiedPayloadCarriesEveryClaim() throws {
        let token = Tokens.hs256(claims: Tokens.claims(["tenant": "acme"]))
        let payload = try Tokens.verifier().verify(token, now: Tokens.now).payload
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        XCTAssertEqual(object["tenant"] as? String, "acme")
    }

    func testHS256KidThatNamesNoPublicKeyStillUsesTheSecret() throws {
        let token = Tokens.hs256(header: ["kid": "dev"])
        XCTAssertEqual(try Tokens.verifier().verify(token, now: Tokens.now).algorithm, .hs256)
    }

    func testMintedHS256TokenVerifies() throws {
        let exp = Int(Tokens.now.timeIntervalSince1970) + 600
        let token = try JWTSigner.hs256(claims: ["sub": "bob", "exp": exp], secret: Tokens.secret)
        let claims = try JWTVerifier(hs256Secret: Tokens.secret).verify(token, now: Tokens.now)
        XCTAssertEqual(claims.subject, "bob")
        XCTAssertEqual(claims.expiresAt, Date(timeIntervalSince1970: Double(exp)))
    }

    func testOneVerifierServesSeveralThreadsAtOnce() throws {
        let verifier = try Tokens.verifier()
        let tokens = [Tokens.hs256(), Tokens.signed(by: .rsa, kid: "rsa-1"), Tokens.signed(by: .ec, kid: "ec-1")]
        let subjects = Subjects()
        DispatchQueue.concurrentPerform(iterations: 24) { index in
            subjects.append((try? verifier.verify(tokens[index % tokens.count], now: Tokens.now))?.subject ?? "refused")
        }
        XCTAssertEqual(subjects.all, Array(repeating: "alice", count: 24))
    }

    func testEveryRefusalIsA401WithTheBearerChallenge() {
        for error in [JWTError.badSignature, .expired, .unsupportedAlgorithm("none"), .tooLarge(bytes: 9000)] {
            XCTAssertEqual(error.status, 401)
            XCTAssertEqual(error.slug, "unauthorized")
            XCTAssertEqual(error.wwwAuthenticate, #"Bearer error="invalid_token""#)
            XCTAssertFalse(error.detail.isEmpty)
        }
    }
}

/// Subjects collected from several threads.
private final class Subjects: @unchecked Sendable {
    private let lock = NSLock()
    private var subjects: [String] = []

    var all: [String] { lock.withLock { subjects } }

    func append(_ subject: String) {
        lock.withLock { subjects.append(subject) }
    }
}
