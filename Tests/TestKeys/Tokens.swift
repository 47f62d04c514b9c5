import COpenSSL
import Foundation
import Identity

/// Builds tokens for the tests: any header and payload, signed however a test needs.
public enum Tokens {
    /// The time every test verifies at.
    public static let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// A 32-byte `HS256` secret.
    public static let secret = Array("a development secret of 32 bytes".utf8)

    /// Claims valid at ``now``: `sub` alice, an hour left, issuer and audience as configured by
    /// ``verifier(secret:keys:)``.
    public static func claims(_ changes: [String: Any] = [:], removing: [String] = []) -> [String: Any] {
        var claims: [String: Any] = ["sub": "alice", "exp": now.timeIntervalSince1970 + 3600,
                                     "iat": now.timeIntervalSince1970, "iss": "https://id.example.com", "aud": "sectional"]
        claims.merge(changes) { _, new in new }
        for name in removing { claims[name] = nil }
        return claims
    }

    /// Compact JSON text of a JSON object.
    public static func json(_ object: Any) -> [UInt8] {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return [] }
        return Array(data)
    }

    /// `header.payload` encoded, then signed by `sign`.
    public static func token(header: [String: Any], claims: [String: Any], sign: ([UInt8]) -> [UInt8]) -> String {
        token(encodedHeader: Base64URL.encode(json(header)), encodedPayload: Base64URL.encode(json(claims)), sign: sign)
    }

    /// Already-encoded parts, signed by `sign`.
    public static func token(encodedHeader: String, encodedPayload: String, sign: ([UInt8]) -> [UInt8]) -> String {
        let signingInput = encodedHeader + "." + encodedPayload
        return signingInput + "." + Base64URL.encode(sign(Array(signingInput.utf8)))
    }

    /// A token signed by `key` with its algorithm and `kid`.
    public static func signed(by key: TestKey, kid: String?, claims: [String: Any] = claims(), alg: String? = nil) -> String {
        var header: [String: Any] = ["alg": alg ?? key.algorithm, "typ": "JWT"]
        header["kid"] = kid
        return token(header: header, claims: claims, sign: key.sign)
    }

    /// An `HS256` token MACed with `secret`, with extra header members.
    public static func hs256(claims: [String: Any] = claims(), secret: [UInt8] = secret, header: [String: Any] = [:]) -> String {
        var fullHeader: [String: Any] = ["alg": "HS256", "typ": "JWT"]
        fullHeader.merge(header) { _, new in new }
        return token(header: fullHeader, claims: claims) { hmacSHA256(key: secret, message: $0) }
    }

    /// HMAC-SHA-256 of `message` under ``secret``.
    public static func macWithSecret(_ message: [UInt8]) -> [UInt8] {
        hmacSHA256(key: secret, message: message)
    }

    /// HMAC-SHA-256 by libcrypto's one-shot `HMAC()`.
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = key.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { message in
                digest.withUnsafeMutableBufferPointer {
                    HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count, $0.baseAddress, &length)
                }
            }
        }
        return digest
    }

    /// The JWKS document of `keys` (each with its `kid`).
    public static func jwks(_ keys: [(TestKey, String?)]) -> [UInt8] {
        json(["keys": keys.map { key, kid in key.jwk(kid: kid) }])
    }

    /// A key set of RSA `rsa-1` and EC `ec-1`.
    public static func keySet() throws -> JSONWebKeySet {
        try JSONWebKeySet(json: jwks([(TestKey.rsa, "rsa-1"), (TestKey.ec, "ec-1")]))
    }

    /// A verifier with `secret` and/or the ``keySet()``, issuer and audience set, 60 s leeway.
    public static func verifier(secret: Bool = true, keys: Bool = true) throws -> JWTVerifier {
        try JWTVerifier(hs256Secret: secret ? Self.secret : nil, keySet: keys ? keySet() : nil,
                        issuer: "https://id.example.com", audience: "sectional", leewaySeconds: 60)
    }

    /// `token` with one character of its signature changed.
    public static func tamperedSignature(_ token: String) -> String {
        var characters = Array(token)
        guard let index = characters.indices.dropLast(4).last else { return token }
        characters[index] = characters[index] == "A" ? "B" : "A"
        return String(characters)
    }
}
