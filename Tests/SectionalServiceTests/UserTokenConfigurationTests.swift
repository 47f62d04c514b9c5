import Foundation
import Identity
import ListModel
import SectionalService
import TestKeys
import TestSupport
import XCTest

/// `auth.users` and `scopes` in the config file: strict like the rest, paths resolved against the
/// config folder, and every unusable secret or key file a start-up error naming its key.
final class UserTokenConfigurationTests: FolderTestCase {
    private func parse(_ text: String) throws -> Configuration {
        try Configuration.parse(try JSONParser.parse(text), folder: folder.path)
    }

    private func issues(_ text: String) -> [String] {
        do {
            _ = try parse(text)
            return []
        } catch let error as ConfigError {
            return error.issues.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    private func writeKeys(_ bytes: [UInt8], to name: String = "jwks.json") throws {
        try Data(bytes).write(to: folder.appendingPathComponent(name))
    }

    func testUsersAndScopesAreReadWithTheirDefaults() throws {
        let none = try parse(#"{ "lists": {} }"#)
        XCTAssertNil(none.users)
        XCTAssertEqual(none.maxResidentRows, 2_000_000)
        XCTAssertNil(try none.userTokenVerifier(), "no auth.users: no user tokens")

        let full = try parse("""
        { "auth": { "tokenEnv": "T", "users": { "hs256SecretEnv": "MY_SECRET", "jwksFile": "keys/jwks.json",
                                               "issuer": "https://id.example.com", "audience": "sectional", "leewaySeconds": 5 } },
          "scopes": { "maxResidentRows": 1000 }, "lists": {} }
        """)
        let users = try XCTUnwrap(full.users)
        XCTAssertEqual(users.secretEnvironmentVariable, "MY_SECRET")
        XCTAssertEqual(users.jwksPath, folder.appendingPathComponent("keys/jwks.json").path, "relative to the config file")
        XCTAssertEqual(users.issuer, "https://id.example.com")
        XCTAssertEqual(users.audience, "sectional")
        XCTAssertEqual(users.leewaySeconds, 5)
        XCTAssertEqual(full.maxResidentRows, 1000)

        let secretOnly = try XCTUnwrap(try parse(#"{ "auth": { "users": { "hs256SecretEnv": "S" } }, "lists": {} }"#).users)
        XCTAssertEqual(secretOnly.leewaySeconds, 60)
        XCTAssertNil(secretOnly.jwksPath)
    }

    func testMistakesAreNamedByTheirPath() {
        XCTAssertEqual(issues(#"{ "auth": { "users": { "hs256SecretEnv": "S", "secret": "x" } }, "lists": {} }"#),
                       ["auth.users.secret: unknown key"])
        XCTAssertEqual(issues(#"{ "auth": { "users": {} }, "lists": {} }"#).first?.hasPrefix("auth.users.hs256SecretEnv: auth.users needs"), true)
        XCTAssertEqual(issues(#"{ "auth": { "users": { "jwksFile": 3, "leewaySeconds": -1 } }, "lists": {} }"#).sorted(),
                       ["auth.users.jwksFile: must be a string", "auth.users.leewaySeconds: must be an integer from 0 to 86400"])
        XCTAssertEqual(issues(#"{ "auth": { "users": "yes" }, "lists": {} }"#), ["auth.users: must be an object"])
        XCTAssertEqual(issues(#"{ "auth": { "users": { "hs256SecretEnv": "" } }, "lists": {} }"#),
                       ["auth.users.hs256SecretEnv: must name an environment variable"], "check refuses it, as serve does")
        XCTAssertEqual(issues(#"{ "scopes": { "maxResidentRows": 0 }, "lists": {} }"#),
                       ["scopes.maxResidentRows: must be an integer from 1 to 1000000000"])
        XCTAssertEqual(issues(#"{ "scopes": { "maxRows": 5 }, "lists": {} }"#), ["scopes.maxRows: unknown key"])
    }

    func testTheSecretComesFromTheNamedVariable() throws {
        let path = folder.appendingPathComponent("sectional.json").path
        try #"{ "auth": { "users": { "hs256SecretEnv": "MY_SECRET" } }, "lists": {} }"#.write(toFile: path, atomically: true, encoding: .utf8)
        let secret = "a development secret of 32 bytes"
        let configuration = try Configuration.load(path: path, environment: ["MY_SECRET": secret])
        XCTAssertEqual(configuration.userTokenSecret, secret)
        let verifier = try XCTUnwrap(try configuration.userTokenVerifier())
        let token = Tokens.hs256(claims: Tokens.claims(removing: ["iss", "aud"]))
        XCTAssertEqual(try verifier.verify(token, now: Tokens.now).subject, "alice")

        XCTAssertThrowsError(try Configuration.load(path: path, environment: [:]).userTokenVerifier()) { error in
            XCTAssertEqual((error as? ConfigError)?.description,
                           "auth.users.hs256SecretEnv: the environment variable MY_SECRET is not set; set it to an HS256 secret of at least 32 bytes")
        }
        XCTAssertNil(try Configuration.load(path: path, environment: [:]).userTokenVerifier(requireSecret: false),
                     "sectional check without the variable: nothing to verify with, and no error")
        XCTAssertThrowsError(try Configuration.load(path: path, environment: ["MY_SECRET": "short"]).userTokenVerifier()) { error in
            XCTAssertEqual((error as? ConfigError)?.description,
                           "auth.users.hs256SecretEnv: the secret in MY_SECRET is 5 bytes; HS256 needs at least 32")
        }
    }

    func testTheKeyFileMustHoldUsableKeys() throws {
        let config = #"{ "auth": { "users": { "jwksFile": "jwks.json", "audience": "sectional", "issuer": "https://id.example.com" } }, "lists": {} }"#
        XCTAssertThrowsError(try parse(config).userTokenVerifier()) { error in
            XCTAssertEqual((error as? ConfigError)?.description,
                           "auth.users.jwksFile: cannot read \(self.folder.appendingPathComponent("jwks.json").path)")
        }
        for (bytes, message) in [(Array("not json".utf8), "not a JWKS document"),
                                 (Array(#"{"keys":[{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}]}"#.utf8), "no usable key"),
                                 (Array(#"{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}"#.utf8), "keys[0] holds private key material"),
                                 (Tokens.jwks([(TestKey.rsa, "same"), (TestKey.ec, "same")]), "two keys share the kid 'same'"),
                                 (Array(#"{"keys":[{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}]}"#.utf8), "keys[0] has missing or bad components")] {
            try writeKeys(bytes)
            XCTAssertThrowsError(try parse(config).userTokenVerifier(), message) { error in
                let description = (error as? ConfigError)?.description ?? "\(error)"
                XCTAssertTrue(description.hasPrefix("auth.users.jwksFile: "), description)
                XCTAssertTrue(description.contains(message), "\(description) does not say \(message)")
            }
        }
        try writeKeys(Tokens.jwks([(TestKey.rsa, "rsa-1"), (TestKey.ec, "ec-1")]))
        let verifier = try XCTUnwrap(try parse(config).userTokenVerifier())
        XCTAssertEqual(try verifier.verify(Tokens.signed(by: .ec, kid: "ec-1"), now: Tokens.now).subject, "alice")
    }

    func testAServerWithAnUnusableKeyFileDoesNotStart() throws {
        var configuration = try parse(#"{ "auth": { "users": { "jwksFile": "missing.json" } }, "lists": {} }"#)
        configuration.server.port = 0
        configuration.storage = .memory
        let server = SectionalServer(configuration: configuration, log: Log(level: .error))
        XCTAssertThrowsError(try server.start()) { error in
            XCTAssertTrue((error as? ConfigError)?.description.hasPrefix("auth.users.jwksFile: cannot read") == true, "\(error)")
        }
        XCTAssertEqual(server.port, 0, "nothing was bound")
    }
}
