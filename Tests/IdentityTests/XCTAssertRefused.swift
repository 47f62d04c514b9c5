import Foundation
import Identity
import TestKeys
import XCTest

/// Asserts that verifying `token` throws `expected`.
func XCTAssertRefused(_ verifier: JWTVerifier, _ token: String, _ expected: JWTError, now: Date = Tokens.now,
                      file: StaticString = #filePath, line: UInt = #line) {
    do {
        let claims = try verifier.verify(token, now: now)
        XCTFail("accepted, subject \(claims.subject); expected \(expected)", file: file, line: line)
    } catch {
        XCTAssertEqual(error, expected, file: file, line: line)
    }
}
