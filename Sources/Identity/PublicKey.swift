import COpenSSL

/// A public key held by libcrypto (an `EVP_PKEY`), with the one algorithm it verifies. Immutable
/// once built; libcrypto allows verifying with one key from several threads at once.
public final class PublicKey: @unchecked Sendable {
    /// The algorithm this key verifies: the token's `alg` must be this one.
    public let algorithm: JWSAlgorithm
    let key: OpaquePointer

    private init(algorithm: JWSAlgorithm, key: OpaquePointer) {
        self.algorithm = algorithm
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// The smallest RSA modulus accepted, in bits.
    public static let minimumRSABits = 2048

    /// An `RS256` key from its modulus and exponent (big-endian bytes), or nil when libcrypto
    /// refuses them or the modulus is shorter than ``minimumRSABits``.
    public static func rsa(modulus: [UInt8], exponent: [UInt8]) -> PublicKey? {
        guard let key = LibCrypto.rsaPublicKey(modulus: modulus, exponent: exponent) else { return nil }
        let publicKey = PublicKey(algorithm: .rs256, key: key)
        return LibCrypto.bits(of: key) >= minimumRSABits ? publicKey : nil
    }

    /// An `ES256` key from its P-256 point (32-byte big-endian coordinates), or nil when the point
    /// is not on the curve.
    public static func p256(x: [UInt8], y: [UInt8]) -> PublicKey? {
        LibCrypto.p256PublicKey(x: x, y: y).map { PublicKey(algorithm: .es256, key: $0) }
    }

    /// Whether `signature` (as a JWS carries it) signs `message` under this key.
    func verifies(signature: [UInt8], of message: [UInt8]) -> Bool {
        switch algorithm {
        case .rs256:
            return LibCrypto.verifySHA256(signature: signature, message: message, key: key)
        case .es256:
            guard let der = LibCrypto.derECDSASignature(raw: signature, coordinateBytes: 32) else { return false }
            return LibCrypto.verifySHA256(signature: der, message: message, key: key)
        case .hs256:
            return false
        }
    }
}
