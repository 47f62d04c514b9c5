import COpenSSL

/// The few libcrypto (OpenSSL 3) calls the verifier needs, each taking and returning Swift
/// values. No cryptography is done here, only calls into libcrypto; pointers stay inside the
/// closures that lend them, and OpenSSL's error queue is cleared after each call that may fail,
/// so failures leave nothing behind on the thread.
enum LibCrypto {
    /// HMAC-SHA-256 of `message` under `key`.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = key.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { message in
                digest.withUnsafeMutableBufferPointer { digest in
                    HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count,
                         digest.baseAddress, &length) != nil
                }
            }
        }
        defer { ERR_clear_error() }
        guard done, length == 32 else { return nil }
        return Array(digest.prefix(32))
    }

    /// Whether `first` and `second` are equal, in time that depends only on their length.
    static func constantTimeEqual(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        guard first.count == second.count, !first.isEmpty else { return false }
        return first.withUnsafeBytes { first in
            second.withUnsafeBytes { second in
                CRYPTO_memcmp(first.baseAddress, second.baseAddress, first.count) == 0
            }
        }
    }

    /// Whether `signature` is `key`'s SHA-256 signature of `message` (RSA PKCS #1 v1.5 for an
    /// RSA key, a DER `ECDSA-Sig-Value` for an EC key).
    static func verifySHA256(signature: [UInt8], message: [UInt8], key: OpaquePointer) -> Bool {
        guard !signature.isEmpty, let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_DigestVerifyInit_ex(context, nil, "SHA256", nil, nil, key, nil) == 1 else { return false }
        let result = signature.withUnsafeBufferPointer { signature in
            message.withUnsafeBufferPointer { message in
                EVP_DigestVerify(context, signature.baseAddress, signature.count, message.baseAddress, message.count)
            }
        }
        return result == 1
    }

    /// The DER `ECDSA-Sig-Value` of a JWS ECDSA signature: `r` and `s` as big-endian integers of
    /// `coordinateBytes` bytes each, concatenated (RFC 7518 §3.4).
    static func derECDSASignature(raw: [UInt8], coordinateBytes: Int) -> [UInt8]? {
        guard raw.count == 2 * coordinateBytes, let signature = ECDSA_SIG_new() else { return nil }
        defer {
            ECDSA_SIG_free(signature)
            ERR_clear_error()
        }
        let r = bigNumber(raw[0..<coordinateBytes])
        let s = bigNumber(raw[coordinateBytes...])
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }

    /// An RSA public key from its modulus and public exponent (big-endian, unsigned).
    static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) -> OpaquePointer? {
        guard let n = bigNumber(modulus[...]) else { return nil }
        defer { BN_free(n) }
        guard let e = bigNumber(exponent[...]) else { return nil }
        defer { BN_free(e) }
        return publicKey(type: "RSA") { builder in
            OSSL_PARAM_BLD_push_BN(builder, cString("n"), n) == 1 && OSSL_PARAM_BLD_push_BN(builder, cString("e"), e) == 1
        }
    }

    /// An EC public key on P-256 from its affine coordinates (32 bytes each, big-endian).
    static func p256PublicKey(x: [UInt8], y: [UInt8]) -> OpaquePointer? {
        guard x.count == 32, y.count == 32 else { return nil }
        let point: [UInt8] = [0x04] + x + y  // SEC 1 uncompressed point
        return point.withUnsafeBytes { point in
            publicKey(type: "EC") { builder in
                OSSL_PARAM_BLD_push_utf8_string(builder, cString("group"), cString("prime256v1"), 0) == 1
                    && OSSL_PARAM_BLD_push_octet_string(builder, cString("pub"), point.baseAddress, point.count) == 1
            }
        }
    }

    /// The size in bits of `key` (an RSA modulus, an EC group order).
    static func bits(of key: OpaquePointer) -> Int {
        Int(EVP_PKEY_get_bits(key))
    }

    /// A public key of `type` built from the parameters `push` adds to a parameter builder, and
    /// checked by libcrypto (an EC point on its curve, an odd RSA modulus and exponent). The
    /// builder keeps pointers until its parameters are made, so `push` passes only values that
    /// outlive this call.
    private static func publicKey(type: StaticString, push: (OpaquePointer) -> Bool) -> OpaquePointer? {
        defer { ERR_clear_error() }
        guard let builder = OSSL_PARAM_BLD_new() else { return nil }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard push(builder), let parameters = OSSL_PARAM_BLD_to_param(builder) else { return nil }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, cString(type), nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
              EVP_PKEY_fromdata(context, &key, sectional_evp_pkey_public_key_selection(), parameters) == 1,
              let key
        else { return nil }
        guard let checker = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            EVP_PKEY_free(key)
            return nil
        }
        defer { EVP_PKEY_CTX_free(checker) }
        guard EVP_PKEY_public_check(checker) == 1 else {
            EVP_PKEY_free(key)
            return nil
        }
        return key
    }

    /// A new big number (the caller frees it) from big-endian unsigned bytes.
    private static func bigNumber(_ bytes: ArraySlice<UInt8>) -> OpaquePointer? {
        guard !bytes.isEmpty else { return nil }
        return bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
    }

    /// A C string with static storage: OpenSSL's parameter builder keeps key names as pointers.
    private static func cString(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
