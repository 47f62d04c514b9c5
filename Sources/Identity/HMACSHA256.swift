/// HMAC-SHA-256 (RFC 2104) computed by libcrypto, for messages other than tokens (webhook
/// bodies are signed with it).
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA-256 of `message` under `key`; nil only when libcrypto fails.
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        LibCrypto.hmacSHA256(key: key, message: message)
    }
}
