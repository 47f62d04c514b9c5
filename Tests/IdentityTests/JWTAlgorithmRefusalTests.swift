import Foundation
import Identity
import TestKeys
import XCTest

/// The algorithm comes from the key, never from the token alone.
final class JWTAlgorithmRefusalTests: XCTestCase {
    func testAlgNoneIsRefused() throws {
        let verifier = try Tokens.verifier()
        for alg in ["none", "None", "NONE"] {
            let unsigned = Tokens.token(header: ["alg": alg], claims: Tokens.claims()) { _ in [] }
            XCTAssertRefused(verifier, unsigned, .unsupportedAlgorithm(alg))
            let macced = Tokens.token(header: ["alg": alg], claims: Tokens.claims(), sign: Tokens.macWithSecret)
            XCTAssertRefused(verifier, macced, .unsupportedAlgorithm(alg))
        }
    }

    func testOtherAlgorithmsAndAMissingAlgAreRefused() throws {
        let verifier = try Tokens.verifier()
        for alg in ["HS384", "HS512", "RS512", "PS256", "ES384", "EdDSA", "hs256"] {
            let token = Tokens.token(header: ["alg": alg], claims: Tokens.claims(), sign: Tokens.macWithSecret)
            XCTAssertRefused(verifier, token, .unsupportedAlgorithm(alg))
        }
        let noAlg = Tokens.token(header: ["typ": "JWT"], claims: Tokens.claims(), sign: Tokens.macWithSecret)
        XCTAssertRefused(verifier, noAlg, .unsupportedAlgorithm(""))
    }

    func testHS256MACedWithThePublicKeyIsRefusedWhenOnlyPublicKeysAreConfigured() throws {
        let verifier = try Tokens.verifier(secret: false)
        for key in [TestKey.rsa, TestKey.ec] {
            XCTAssertGreaterThan(key.publicKeyDER.count, 32)
            for publicBytes in [key.publicKeyDER, Tokens.json(key.jwk(kid: nil))] {
                XCTAssertRefused(verifier, Tokens.hs256(secret: publicBytes), .noKeyForAlgorithm("HS256"))
            }
        }
        let forged = Tokens.hs256(secret: TestKey.rsa.publicKeyDER, header: ["kid": "rsa-1"])
        XCTAssertRefused(verifier, forged, .algorithmMismatch(token: "HS256", key: "RS256"))
    }

    func testHS256HeaderOnAPublicKeysKidIsRefusedEvenWithASecret() throws {
        let verifier = try Tokens.verifier()
        let withSecret = Tokens.hs256(header: ["kid": "rsa-1"])
        XCTAssertRefused(verifier, withSecret, .algorithmMismatch(token: "HS256", key: "RS256"))
        let withPublicKey = Tokens.hs256(secret: TestKey.ec.publicKeyDER, header: ["kid": "ec-1"])
        XCTAssertRefused(verifier, withPublicKey, .algorithmMismatch(token: "HS256", key: "ES256"))
    }

    func testAnotherAsymmetricAlgorithmOnAKidIsRefused() throws {
        let verifier = try Tokens.verifier()
        XCTAssertRefused(verifier, Tokens.signed(by: .ec, kid: "rsa-1"), .algorithmMismatch(token: "ES256", key: "RS256"))
        XCTAssertRefused(verifier, Tokens.signed(by: .rsa, kid: "ec-1"), .algorithmMismatch(token: "RS256", key: "ES256"))
        let oneRSAKey = try JWTVerifier(keySet: JSONWebKeySet(json: Tokens.jwks([(TestKey.rsa, nil)])))
        XCTAssertRefused(oneRSAKey, Tokens.signed(by: .ec, kid: nil), .algorithmMismatch(token: "ES256", key: "RS256"))
    }

    func testUnknownKidIsRefused() throws {
        let verifier = try Tokens.verifier()
        XCTAssertRefused(verifier, Tokens.signed(by: .rsa, kid: "rsa-2"), .unknownKeyID("rsa-2"))
        XCTAssertRefused(verifier, Tokens.signed(by: .ec, kid: "ec-9"), .unknownKeyID("ec-9"))
        let oneKey = try JWTVerifier(keySet: JSONWebKeySet(json: Tokens.jwks([(TestKey.rsa, nil)])))
        XCTAssertRefused(oneKey, Tokens.signed(by: .rsa, kid: "rsa-1"), .unknownKeyID("rsa-1"))
    }

    func testMissingKidIsRefusedWhenSeveralKeysCouldApply() throws {
        XCTAssertRefused(try Tokens.verifier(), Tokens.signed(by: .rsa, kid: nil), .unknownKeyID(nil))
    }

    func testRS256WithoutPublicKeysIsRefused() throws {
        XCTAssertRefused(try Tokens.verifier(keys: false), Tokens.signed(by: .rsa, kid: "rsa-1"), .noKeyForAlgorithm("RS256"))
    }

    func testCriticalHeaderExtensionsAreRefused() throws {
        let token = Tokens.hs256(header: ["crit": ["b64"], "b64": false])
        XCTAssertRefused(try Tokens.verifier(), token, .unsupportedCriticalHeader)
    }
}
