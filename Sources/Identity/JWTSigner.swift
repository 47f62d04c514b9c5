import Foundation

/// Mints `HS256` user tokens, for development and command-line use (a real deployment's tokens
/// come from its identity provider).
public enum JWTSigner {
    /// An `HS256` JWT of `claims` (a JSON object's members) MACed with `secret`.
    ///
    /// Refused when the secret is shorter than ``JWTVerifier/minimumSecretBytes`` or the claims
    /// cannot be written as JSON.
    public static func hs256(claims: [String: any Sendable], secret: [UInt8]) throws(JWTSignerError) -> String {
        guard secret.count >= JWTVerifier.minimumSecretBytes else { throw .secretTooShort(bytes: secret.count) }
        guard JSONSerialization.isValidJSONObject(claims),
              let payload = try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
        else { throw .claimsNotJSON }
        let signingInput = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(payload)
        guard let mac = LibCrypto.hmacSHA256(key: secret, message: Array(signingInput.utf8)) else { throw .libcryptoFailed }
        return signingInput + "." + Base64URL.encode(mac)
    }
}

/// Why a token could not be minted.
public enum JWTSignerError: Error, Equatable, Sendable {
    /// The secret is shorter than ``JWTVerifier/minimumSecretBytes``.
    case secretTooShort(bytes: Int)
    /// The claims are not a JSON object's members (strings, numbers, booleans, arrays, objects).
    case claimsNotJSON
    /// libcrypto failed to compute the MAC.
    case libcryptoFailed
}
