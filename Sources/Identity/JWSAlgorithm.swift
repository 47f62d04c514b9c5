/// The signature algorithms a user token may use (RFC 7518 names).
public enum JWSAlgorithm: String, Sendable, CaseIterable {
    /// HMAC with SHA-256, under a shared secret.
    case hs256 = "HS256"
    /// RSASSA-PKCS1-v1_5 with SHA-256, under an RSA public key.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256, under an EC public key.
    case es256 = "ES256"
}
