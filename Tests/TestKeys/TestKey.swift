import COpenSSL
import Foundation
import Identity

/// A private key libcrypto generates for the test run (RSA 2048 or EC P-256), with what the tests
/// need from it: its public JWK, its public key's DER bytes, and JWS signatures made with
/// `EVP_DigestSign` (ECDSA converted from DER to the raw `r || s` JWS carries).
public final class TestKey: @unchecked Sendable {
    public enum Kind { case rsa(bits: Int32), p256 }

    public let kind: Kind
    private let key: OpaquePointer

    /// Keys generated once for the whole run (RSA key generation takes a while).
    public static let rsa = TestKey(.rsa(bits: 2048))
    public static let otherRSA = TestKey(.rsa(bits: 2048))
    public static let ec = TestKey(.p256)
    public static let otherEC = TestKey(.p256)

    public init(_ kind: Kind) {
        self.kind = kind
        var generated: OpaquePointer?
        if let context = EVP_PKEY_CTX_new_from_name(nil, kind.typeName, nil) {
            defer { EVP_PKEY_CTX_free(context) }
            let configured: Bool
            switch kind {
            case .rsa(let bits): configured = EVP_PKEY_keygen_init(context) == 1 && EVP_PKEY_CTX_set_rsa_keygen_bits(context, bits) == 1
            case .p256: configured = EVP_PKEY_keygen_init(context) == 1 && EVP_PKEY_CTX_set_group_name(context, "P-256") == 1
            }
            if configured, EVP_PKEY_generate(context, &generated) != 1 { generated = nil }
        }
        guard let generated else { preconditionFailure("libcrypto could not generate a \(kind.typeName) key") }
        key = generated
    }

    deinit { EVP_PKEY_free(key) }

    /// The algorithm a JWS signed with this key names.
    public var algorithm: String {
        switch kind {
        case .rsa: "RS256"
        case .p256: "ES256"
        }
    }

    /// The public JWK of this key (RFC 7517), with `kid` when given.
    public func jwk(kid: String?) -> [String: String] {
        var jwk: [String: String]
        switch kind {
        case .rsa:
            jwk = ["kty": "RSA", "n": Base64URL.encode(bigNumber("n")), "e": Base64URL.encode(bigNumber("e"))]
        case .p256:
            jwk = ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(bigNumber("qx", padded: 32)),
                   "y": Base64URL.encode(bigNumber("qy", padded: 32))]
        }
        jwk["kid"] = kid
        return jwk
    }

    /// The SubjectPublicKeyInfo DER of the public key (what an attacker would MAC with when
    /// trying algorithm confusion).
    public var publicKeyDER: [UInt8] {
        let length = i2d_PUBKEY(key, nil)
        guard length > 0 else { return [] }
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_PUBKEY(key, &cursor)
        }
        return der
    }

    /// The JWS signature of `message`: PKCS #1 v1.5 bytes for RSA, raw `r || s` for ECDSA.
    public func sign(_ message: [UInt8]) -> [UInt8] {
        let signature = signDER(message)
        if case .p256 = kind { return Self.rawECDSA(der: signature) }
        return signature
    }

    /// The signature of `message` as `EVP_DigestSign` makes it (DER for ECDSA).
    public func signDER(_ message: [UInt8]) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { return [] }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit_ex(context, nil, "SHA256", nil, nil, key, nil) == 1 else { return [] }
        var length = 0
        guard message.withUnsafeBufferPointer({ EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }) == 1 else { return [] }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = signature.withUnsafeMutableBufferPointer { signature in
            message.withUnsafeBufferPointer { EVP_DigestSign(context, signature.baseAddress, &length, $0.baseAddress, $0.count) }
        }
        guard signed == 1 else { return [] }
        return Array(signature.prefix(length))
    }

    /// The DER ECDSA signature as JWS carries it: `r` and `s`, 32 big-endian bytes each.
    public static func rawECDSA(der: [UInt8]) -> [UInt8] {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { return [] }
        defer { ECDSA_SIG_free(parsed) }
        return padded(ECDSA_SIG_get0_r(parsed), to: 32) + padded(ECDSA_SIG_get0_s(parsed), to: 32)
    }

    private func bigNumber(_ name: String, padded width: Int? = nil) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else { return [] }
        defer { BN_free(number) }
        return Self.padded(number, to: width ?? Int((BN_num_bits(number) + 7) / 8))
    }

    private static func padded(_ number: OpaquePointer?, to width: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: width)
        let written = bytes.withUnsafeMutableBufferPointer { BN_bn2binpad(number, $0.baseAddress, Int32(width)) }
        return written == width ? bytes : []
    }
}

private extension TestKey.Kind {
    var typeName: String {
        switch self {
        case .rsa: "RSA"
        case .p256: "EC"
        }
    }
}
