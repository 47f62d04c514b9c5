import Foundation
import Identity
import TestKeys
import XCTest

/// Signatures that do not verify, and claims that are not read before they do.
final class JWTSignatureRefusalTests: XCTestCase {
    private func validTokens() -> [String] {
        [Tokens.hs256(), Tokens.signed(by: .rsa, kid: "rsa-1"), Tokens.signed(by: .ec, kid: "ec-1")]
    }

    func testBadSignatureIsRefused() throws {
        let verifier = try Tokens.verifier()
        for token in validTokens() {
            XCTAssertNoThrow(try verifier.verify(token, now: Tokens.now))
            XCTAssertRefused(verifier, Tokens.tamperedSignature(token), .badSignature)
        }
    }

    func testPayloadSwappedUnderAKeptSignatureIsRefused() throws {
        let verifier = try Tokens.verifier()
        let bobsPayload = Base64URL.encode(Tokens.json(Tokens.claims(["sub": "bob"])))
        for token in validTokens() {
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            XCTAssertEqual(parts.count, 3)
            let swapped = [String(parts[0]), bobsPayload, String(parts[2])].joined(separator: ".")
            XCTAssertRefused(verifier, swapped, .badSignature)
        }
    }

    func testSignatureByAnotherKeyOrSecretIsRefused() throws {
        let verifier = try Tokens.verifier()
        XCTAssertRefused(verifier, Tokens.signed(by: .otherRSA, kid: "rsa-1"), .badSignature)
        XCTAssertRefused(verifier, Tokens.signed(by: .otherEC, kid: "ec-1"), .badSignature)
        XCTAssertRefused(verifier, Tokens.hs256(secret: Array("another secret, also of 32 bytes".utf8)), .badSignature)
    }

    func testSignaturesOfTheWrongShapeAreRefused() throws {
        let verifier = try Tokens.verifier()
        let header: [String: Any] = ["alg": "ES256", "kid": "ec-1"]
        let der = Tokens.token(header: header, claims: Tokens.claims()) { TestKey.ec.signDER($0) }
        XCTAssertRefused(verifier, der, .badSignature)
        let truncatedMAC = Tokens.token(header: ["alg": "HS256"], claims: Tokens.claims()) {
            Array(Tokens.macWithSecret($0).prefix(16))
        }
        XCTAssertRefused(verifier, truncatedMAC, .badSignature)
        let empty = Tokens.token(header: ["alg": "RS256", "kid": "rsa-1"], claims: Tokens.claims()) { _ in [] }
        XCTAssertRefused(verifier, empty, .badSignature)
    }

    func testNoClaimIsReadBeforeTheSignatureVerifies() throws {
        let verifier = try Tokens.verifier()
        let header = Base64URL.encode(Tokens.json(["alg": "HS256"]))
        let mac = Tokens.macWithSecret
        let otherMAC = { (message: [UInt8]) in Tokens.hmacSHA256(key: Array("another secret, also of 32 bytes".utf8), message: message) }
        for (payload, whenSigned) in [("not+base64", JWTError.malformedBase64URL(.payload)),
                                      (Base64URL.encode(Array("[1,2]".utf8)), .malformedJSON(.payload)),
                                      (Base64URL.encode(Tokens.json(Tokens.claims(["exp": 1]))), .expired)] {
            XCTAssertRefused(verifier, Tokens.token(encodedHeader: header, encodedPayload: payload, sign: otherMAC), .badSignature)
            XCTAssertRefused(verifier, Tokens.token(encodedHeader: header, encodedPayload: payload, sign: mac), whenSigned)
        }
    }
}
