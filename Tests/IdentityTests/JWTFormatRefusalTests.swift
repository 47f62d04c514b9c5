import Foundation
import Identity
import TestKeys
import XCTest

/// Tokens that are not well-formed JWS compact serializations, or too long.
final class JWTFormatRefusalTests: XCTestCase {
    func testPaddedBase64URLIsRefused() throws {
        let verifier = try Tokens.verifier()
        let padded = Tokens.token(encodedHeader: Base64URL.encode(Tokens.json(["alg": "HS256"])) + "=",
                                  encodedPayload: Base64URL.encode(Tokens.json(Tokens.claims())), sign: Tokens.macWithSecret)
        XCTAssertRefused(verifier, padded, .malformedBase64URL(.header))
        XCTAssertRefused(verifier, Tokens.hs256() + "==", .malformedBase64URL(.signature))
    }

    func testStandardBase64AlphabetIsRefused() throws {
        let verifier = try Tokens.verifier()
        let token = Tokens.hs256()
        let parts = token.split(separator: ".").map(String.init)
        XCTAssertEqual(parts.count, 3)
        let plusSlash = parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let signature = plusSlash == parts[2] ? "+" + parts[2].dropFirst() : plusSlash
        XCTAssertRefused(verifier, [parts[0], parts[1], signature].joined(separator: "."), .malformedBase64URL(.signature))
        XCTAssertRefused(verifier, [parts[0] + "+", parts[1], parts[2]].joined(separator: "."), .malformedBase64URL(.header))
        XCTAssertRefused(verifier, [parts[0], parts[1], parts[2] + " "].joined(separator: "."), .malformedBase64URL(.signature))
    }

    func testMalformedJSONIsRefused() throws {
        let verifier = try Tokens.verifier()
        let mac = Tokens.macWithSecret
        let payload = Base64URL.encode(Tokens.json(Tokens.claims()))
        for header in [#"{"alg":"HS256""#, #"["HS256"]"#, #"{"alg":256}"#, #"{"alg":"HS256","kid":7}"#, "", "\u{FF}"] {
            let token = Tokens.token(encodedHeader: Base64URL.encode(Array(header.utf8)), encodedPayload: payload, sign: mac)
            XCTAssertRefused(verifier, token, .malformedJSON(.header))
        }
        let header = Base64URL.encode(Tokens.json(["alg": "HS256"]))
        for claims in [#"{"sub":"alice""#, #""alice""#, "null", ""] {
            let token = Tokens.token(encodedHeader: header, encodedPayload: Base64URL.encode(Array(claims.utf8)), sign: mac)
            XCTAssertRefused(verifier, token, .malformedJSON(.payload))
        }
    }

    func testTokensWithoutThreePartsAreRefused() throws {
        let verifier = try Tokens.verifier()
        let token = Tokens.hs256()
        for malformed in ["", "abc", token + ".", token.split(separator: ".").dropLast().joined(separator: "."), "a.b.c.d.e"] {
            XCTAssertRefused(verifier, malformed, .malformedStructure)
        }
    }

    func testTokenOver8KiBIsRefused() throws {
        let verifier = try Tokens.verifier()
        let exactly8KiB = tokenOfLength(8192)
        XCTAssertEqual(exactly8KiB.utf8.count, 8192)
        XCTAssertEqual(try verifier.verify(exactly8KiB, now: Tokens.now).subject, "alice")
        let over = tokenOfLength(8193)
        XCTAssertEqual(over.utf8.count, 8193)
        XCTAssertRefused(verifier, over, .tooLarge(bytes: 8193))
    }

    /// A valid HS256 token padded by a filler claim to exactly `length` bytes.
    /// (Base64url never has a length of 1 modulo 4, so a header filler of 0 to 2 bytes is tried too.)
    private func tokenOfLength(_ length: Int) -> String {
        for headerFiller in 0..<3 {
            for filler in (length * 3 / 4 - 300)..<length {
                let header = ["typ": String(repeating: "J", count: headerFiller)]
                let token = Tokens.hs256(claims: Tokens.claims(["pad": String(repeating: "x", count: filler)]), header: header)
                if token.utf8.count == length { return token }
                if token.utf8.count > length { break }
            }
        }
        XCTFail("no filler gives a token of exactly \(length) bytes")
        return ""
    }
}
