import Foundation
import Identity
import TestSupport
import XCTest

/// `sectional token` and the user-token checks of `sectional check` and `serve`, as child processes.
final class TokenCommandTests: FolderTestCase {
    private static let secret = "a development secret of 32 bytes"
    /// A variable name no test environment sets, so "unset" is really unset.
    private static let variable = "SECTIONAL_TEST_JWT_SECRET_5D1C"

    private func config(_ users: String) throws -> String {
        let path = folder.appendingPathComponent("sectional.json").path
        try """
        { "auth": { "users": \(users) },
          "lists": { "news": { "sections": [ { "key": "top", "rows": [ { "id": "n1", "title": "Hello" } ] } ] } } }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try ChildProcess.run(ServerProcess.executable, arguments, environment: environment)
    }

    func testTheTokenIsSignedWithTheConfiguredSecretIssuerAndAudience() throws {
        let path = try config(#"{ "hs256SecretEnv": "\#(Self.variable)", "issuer": "https://id.example.com", "audience": "sectional" }"#)
        let minted = try run(["token", "--sub", "alice", "--ttl", "120", "--config", path], environment: [Self.variable: Self.secret])
        XCTAssertEqual(minted.status, 0, minted.errors)
        let token = minted.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let verifier = try JWTVerifier(hs256Secret: Array(Self.secret.utf8), issuer: "https://id.example.com", audience: "sectional")
        let claims = try verifier.verify(token, now: Date())
        XCTAssertEqual(claims.subject, "alice")
        XCTAssertEqual(claims.expiresAt.timeIntervalSinceNow, 120, accuracy: 30)
        XCTAssertThrowsError(try verifier.verify(token, now: Date().addingTimeInterval(120 + 61)), "expired after its ttl (and the leeway)")
    }

    func testMintingWithoutAUsableSecretSaysWhy() throws {
        let path = try config(#"{ "hs256SecretEnv": "\#(Self.variable)" }"#)
        let unset = try run(["token", "--sub", "alice", "--config", path])
        XCTAssertEqual(unset.status, 1)
        XCTAssertTrue(unset.errors.contains("\(Self.variable) is not set"), unset.errors)
        XCTAssertTrue(unset.output.isEmpty)

        let short = try run(["token", "--sub", "alice", "--config", path], environment: [Self.variable: "short"])
        XCTAssertEqual(short.status, 1)
        XCTAssertTrue(short.errors.contains("5 bytes; HS256 needs at least 32"), short.errors)

        let keysOnly = try config(#"{ "jwksFile": "jwks.json" }"#)
        let none = try run(["token", "--sub", "alice", "--config", keysOnly])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.errors.contains("auth.users.hs256SecretEnv"), none.errors)

        let usage = try run(["token", "--config", path])
        XCTAssertEqual(usage.status, 2)
        XCTAssertTrue(usage.errors.contains("token needs --sub"), usage.errors)
        // Its default value given by hand is a token flag all the same: refused with another command.
        let misplaced = try run(["serve", "--ttl", "3600", "--memory", "--config", path])
        XCTAssertEqual(misplaced.status, 2)
        XCTAssertTrue(misplaced.errors.contains("--sub and --ttl go with the token command"), misplaced.errors)
    }

    func testCheckAndServeRefuseUnusableKeysAndSecrets() throws {
        let keys = try config(#"{ "jwksFile": "jwks.json" }"#)
        try Data("{\"keys\":[]}".utf8).write(to: folder.appendingPathComponent("jwks.json"))
        let check = try run(["check", "--config", keys])
        XCTAssertEqual(check.status, 1)
        XCTAssertTrue(check.errors.contains("auth.users.jwksFile:"), check.errors)

        let secret = try config(#"{ "hs256SecretEnv": "\#(Self.variable)" }"#)
        XCTAssertEqual(try run(["check", "--config", secret]).status, 0, "check does not need the secret set")
        let short = try run(["check", "--config", secret], environment: [Self.variable: "short"])
        XCTAssertEqual(short.status, 1)
        XCTAssertTrue(short.errors.contains("auth.users.hs256SecretEnv: the secret in \(Self.variable) is 5 bytes"), short.errors)

        let serve = try run(["serve", "--port", "0", "--memory", "--config", secret])
        XCTAssertEqual(serve.status, 1)
        XCTAssertTrue(serve.errors.contains("auth.users.hs256SecretEnv: the environment variable \(Self.variable) is not set"), serve.errors)
    }

    func testAListThatNeedsAUserTokenWithoutUserTokensIsAWarning() throws {
        let path = folder.appendingPathComponent("sectional.json").path
        try """
        { "lists": { "inbox": { "access": "users", "sections": [ { "key": "top", "rows": [ { "id": "n1", "title": "Hi" } ] } ] },
                     "news": { "sections": [ { "key": "top", "rows": [ { "id": "n1", "title": "Hi" } ] } ] } } }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let server = try ServerProcess(arguments: ["--config", path, "--memory"])
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0, "it starts: the service token still reads the list")
        let warnings = server.log.split(separator: "\n").filter { $0.contains("\"msg\":\"list readable only with the service token\"") }
        XCTAssertEqual(warnings.count, 1, server.log)
        XCTAssertTrue(warnings.first?.contains("\"list\":\"inbox\"") == true, "\(warnings)")
    }
}
