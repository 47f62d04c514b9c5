import Foundation
import Identity
import TestKeys
import XCTest

/// Reading public keys from JWKS documents.
final class JSONWebKeySetTests: XCTestCase {
    private func document(_ keys: [[String: Any]]) -> [UInt8] {
        Tokens.json(["keys": keys])
    }

    private func jwk(_ jwk: [String: String], _ members: [String: Any]) -> [String: Any] {
        (jwk as [String: Any]).merging(members) { _, new in new }
    }

    func testUsableKeysAreReadAndOthersLeftOut() throws {
        let keys: [[String: Any]] = [
            TestKey.rsa.jwk(kid: "rsa-1"),
            jwk(TestKey.ec.jwk(kid: "ec-1"), ["alg": "ES256", "use": "sig", "key_ops": ["verify"]]),
            ["kty": "OKP", "crv": "Ed25519", "kid": "ed", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"],
            ["kty": "EC", "crv": "P-384", "kid": "p384", "x": "AA", "y": "AA"],
            jwk(TestKey.otherRSA.jwk(kid: "enc"), ["use": "enc"]),
            jwk(TestKey.otherRSA.jwk(kid: "ps"), ["alg": "PS256"]),
            jwk(TestKey.otherEC.jwk(kid: "sign-only"), ["key_ops": ["sign"]]),
        ]
        let keySet = try JSONWebKeySet(json: document(keys))
        XCTAssertEqual(keySet.entries.map(\.keyID), ["rsa-1", "ec-1"])
        XCTAssertEqual(keySet.entries.map(\.key.algorithm), [.rs256, .es256])
    }

    func testKeysWithBadComponentsAreRefused() throws {
        var offCurve = TestKey.ec.jwk(kid: "ec-1")
        offCurve["y"] = offCurve["x"]
        var shortX = TestKey.ec.jwk(kid: "ec-1")
        shortX["x"] = Base64URL.encode([UInt8](repeating: 1, count: 31))
        var paddedN = TestKey.rsa.jwk(kid: "rsa-1")
        paddedN["n"] = (paddedN["n"] ?? "") + "="
        var noE = TestKey.rsa.jwk(kid: "rsa-1")
        noE["e"] = nil
        for jwk in [offCurve, shortX, paddedN, noE] {
            XCTAssertThrowsError(try JSONWebKeySet(json: document([TestKey.rsa.jwk(kid: "ok"), jwk]))) { error in
                XCTAssertEqual(error as? JSONWebKeySetError, .invalidKey(index: 1))
            }
        }
    }

    func testRSAKeysUnder2048BitsAreRefused() {
        let small = TestKey(.rsa(bits: 1024))
        XCTAssertThrowsError(try JSONWebKeySet(json: document([small.jwk(kid: "small")]))) { error in
            XCTAssertEqual(error as? JSONWebKeySetError, .invalidKey(index: 0))
        }
    }

    func testPrivateKeyMaterialIsRefused() {
        let withD = jwk(TestKey.ec.jwk(kid: "ec-1"), ["d": "AAAA"])
        XCTAssertThrowsError(try JSONWebKeySet(json: document([withD]))) { error in
            XCTAssertEqual(error as? JSONWebKeySetError, .privateKeyMaterial(index: 0))
        }
        // In an entry the set would not use too (an encryption key, a symmetric secret): it was
        // refused only on the keys that verify, so a leaked secret elsewhere went unnoticed.
        let unused = [jwk(TestKey.rsa.jwk(kid: "enc"), ["use": "enc", "d": "AQAB"]), ["kty": "oct", "k": "c2VjcmV0"]]
        for (index, entry) in unused.enumerated() {
            XCTAssertThrowsError(try JSONWebKeySet(json: document([TestKey.ec.jwk(kid: "ec-1"), entry])), "\(index)") { error in
                XCTAssertEqual(error as? JSONWebKeySetError, .privateKeyMaterial(index: 1))
            }
        }
    }

    func testDuplicateKidIsRefused() {
        let keys = [TestKey.rsa.jwk(kid: "same"), TestKey.ec.jwk(kid: "same")]
        XCTAssertThrowsError(try JSONWebKeySet(json: document(keys))) { error in
            XCTAssertEqual(error as? JSONWebKeySetError, .duplicateKeyID("same"))
        }
    }

    func testDocumentsWithoutUsableKeysOrNotJWKSAreRefused() {
        for (json, expected) in [(document([]), JSONWebKeySetError.noUsableKeys),
                                 (document([["kty": "oct", "k": "c2VjcmV0"]]), .privateKeyMaterial(index: 0)),
                                 (Array(#"{"keys": {}}"#.utf8), .malformedJSON),
                                 (Array(#"[]"#.utf8), .malformedJSON),
                                 (Array(#"{"keys": [{"kty": 1}]}"#.utf8), .malformedJSON)] {
            XCTAssertThrowsError(try JSONWebKeySet(json: json)) { error in
                XCTAssertEqual(error as? JSONWebKeySetError, expected)
            }
        }
    }

    func testVerifierNeedsAKeyAndALongEnoughSecret() throws {
        XCTAssertThrowsError(try JWTVerifier()) { XCTAssertEqual($0 as? JWTVerifierConfigurationError, .noKeys) }
        XCTAssertThrowsError(try JWTVerifier(hs256Secret: Array("short".utf8))) {
            XCTAssertEqual($0 as? JWTVerifierConfigurationError, .secretTooShort(bytes: 5))
        }
        XCTAssertThrowsError(try JWTVerifier(hs256Secret: Tokens.secret, leewaySeconds: -1)) {
            XCTAssertEqual($0 as? JWTVerifierConfigurationError, .negativeLeeway)
        }
        XCTAssertThrowsError(try JWTSigner.hs256(claims: ["sub": "a"], secret: Array("short".utf8))) {
            XCTAssertEqual($0 as? JWTSignerError, .secretTooShort(bytes: 5))
        }
    }
}
