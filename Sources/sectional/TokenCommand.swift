import Foundation
import Identity
import SectionalService

/// `sectional token --sub SUB [--ttl SECONDS]`: prints an `HS256` user token for `subject`,
/// signed with the secret in the variable `auth.users.hs256SecretEnv` names, with the configured
/// issuer and audience. For development and curl; real tokens come from an identity provider.
func mintToken(configPath: String, subject: String, ttlSeconds: Int) -> Int32 {
    let configuration: Configuration
    do {
        configuration = try Configuration.load(path: configPath)
    } catch {
        printError("sectional: cannot mint a token with \(configPath):")   // the file's, or the environment's, problems
        for issue in error.issues { printError("  \(issue)") }
        return 1
    }
    guard let variable = configuration.users?.secretEnvironmentVariable else {
        printError("sectional: \(configPath) configures no HS256 secret for user tokens (auth.users.hs256SecretEnv)")
        return 1
    }
    guard let secret = configuration.userTokenSecret else {
        printError("sectional: \(variable) is not set; it holds the HS256 secret (at least \(JWTVerifier.minimumSecretBytes) bytes) the server verifies user tokens with")
        return 1
    }
    let now = Int(Date().timeIntervalSince1970)
    var claims: [String: any Sendable] = ["sub": subject, "iat": now, "exp": now + ttlSeconds]
    claims["iss"] = configuration.users?.issuer
    claims["aud"] = configuration.users?.audience
    do {
        print(try JWTSigner.hs256(claims: claims, secret: Array(secret.utf8)))
        return 0
    } catch {
        switch error {
        case .secretTooShort(let bytes):
            printError("sectional: the secret in \(variable) is \(bytes) bytes; HS256 needs at least \(JWTVerifier.minimumSecretBytes)")
        case .claimsNotJSON, .libcryptoFailed:
            printError("sectional: cannot sign the token (\(error))")
        }
        return 1
    }
}
