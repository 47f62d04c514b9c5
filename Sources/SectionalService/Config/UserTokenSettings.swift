import Foundation
import Identity

/// `auth.users`: how user tokens are verified. The secret itself is not in the file: it is read
/// from the environment variable the file names (``Configuration/userTokenSecret``).
public struct UserTokenSettings: Sendable, Equatable {
    /// The environment variable holding the `HS256` secret (`hs256SecretEnv`).
    public var secretEnvironmentVariable: String?
    /// The JWKS file of `RS256`/`ES256` public keys (`jwksFile`), resolved against the config folder.
    public var jwksPath: String?
    /// When set, a token's `iss` must equal it.
    public var issuer: String?
    /// When set, a token's `aud` must contain it.
    public var audience: String?
    /// How far past `exp` or before `nbf` a token is still accepted.
    public var leewaySeconds = 60

    public init() {}

    /// Reads the `auth.users` object; its issues stay in `users` (read them with `finish()`).
    static func parse(_ users: inout ObjectReader, folder: String) -> UserTokenSettings {
        var settings = UserTokenSettings()
        settings.secretEnvironmentVariable = users.string("hs256SecretEnv")
        settings.jwksPath = users.string("jwksFile").map { Configuration.resolve($0, against: folder) }
        settings.issuer = users.string("issuer")
        settings.audience = users.string("audience")
        if let leeway = users.int("leewaySeconds", in: 0...86_400) { settings.leewaySeconds = leeway }
        if settings.secretEnvironmentVariable?.isEmpty == true {  // no variable has that name: serve could never start
            users.issue("hs256SecretEnv", "must name an environment variable")
            settings.secretEnvironmentVariable = nil
        }
        if settings.secretEnvironmentVariable == nil && settings.jwksPath == nil && users.issues.isEmpty {
            users.issue("hs256SecretEnv", "auth.users needs hs256SecretEnv (the environment variable holding an HS256 secret), jwksFile (public keys), or both")
        }
        return settings
    }
}

extension Configuration {
    /// The verifier of user tokens, or nil when `auth.users` is not configured. Reads the JWKS
    /// file. Throws ``ConfigError`` naming the key at fault when the secret variable is unset or
    /// shorter than 32 bytes, or the JWKS file is unreadable or holds no usable key.
    ///
    /// With `requireSecret` false (for `sectional check`), an unset secret variable is not an
    /// error; a set one is still checked.
    public func userTokenVerifier(requireSecret: Bool = true) throws(ConfigError) -> JWTVerifier? {
        guard let users else { return nil }
        var issues: [ConfigIssue] = []
        var secret: [UInt8]?
        if let name = users.secretEnvironmentVariable {
            if let value = userTokenSecret {
                secret = Array(value.utf8)
                if value.utf8.count < JWTVerifier.minimumSecretBytes {
                    issues.append(ConfigIssue(path: "auth.users.hs256SecretEnv", message: """
                        the secret in \(name) is \(value.utf8.count) bytes; HS256 needs at least \(JWTVerifier.minimumSecretBytes)
                        """))
                }
            } else if requireSecret {
                issues.append(ConfigIssue(path: "auth.users.hs256SecretEnv", message: """
                    the environment variable \(name) is not set; set it to an HS256 secret of at least \
                    \(JWTVerifier.minimumSecretBytes) bytes
                    """))
            }
        }
        var keySet: JSONWebKeySet?
        if let path = users.jwksPath {
            if let data = FileManager.default.contents(atPath: path) {
                do {
                    keySet = try JSONWebKeySet(json: Array(data))
                } catch {
                    issues.append(ConfigIssue(path: "auth.users.jwksFile", message: "\(path): \(Self.describe(error))"))
                }
            } else {
                issues.append(ConfigIssue(path: "auth.users.jwksFile", message: "cannot read \(path)"))
            }
        }
        guard issues.isEmpty else { throw ConfigError(issues) }
        guard secret != nil || keySet != nil else { return nil }
        do {
            return try JWTVerifier(hs256Secret: secret, keySet: keySet, issuer: users.issuer, audience: users.audience,
                                   leewaySeconds: users.leewaySeconds)
        } catch {
            throw ConfigError(path: "auth.users", "cannot verify user tokens: \(error)")
        }
    }

    private static func describe(_ error: JSONWebKeySetError) -> String {
        switch error {
        case .malformedJSON: "not a JWKS document (a JSON object with a \"keys\" array of JWKs)"
        case .invalidKey(let index): "keys[\(index)] has missing or bad components (RSA needs n and e, 2048 bits or more; EC P-256 needs x and y on the curve)"
        case .privateKeyMaterial(let index): "keys[\(index)] holds private key material (d, p, q or a symmetric key's k); publish public keys only"
        case .duplicateKeyID(let kid): "two keys share the kid '\(kid)'"
        case .noUsableKeys: "no usable key (RS256 RSA or ES256 P-256 signing keys)"
        }
    }
}
