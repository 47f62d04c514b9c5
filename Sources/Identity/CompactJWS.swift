import Foundation

/// A token in JWS compact serialization (`header.payload.signature`, RFC 7515 §7.1), split and
/// with its header and signature decoded. The payload stays encoded: the only way to read it is
/// ``payload(ifVerified:)``, which decodes it after the signature check passes, so no claim can be
/// read from a token whose signature has not been verified.
struct CompactJWS {
    /// The protected header: which algorithm and key the signer claims to have used.
    struct Header: Decodable {
        let alg: String?
        let kid: String?
        /// Extensions the recipient must understand (RFC 7515 §4.1.11); none are supported.
        let crit: [String]?
    }

    let header: Header
    /// The signature, decoded.
    let signature: [UInt8]
    /// What was signed: the ASCII bytes `header.payload` as they appear in the token.
    private let signingInput: [UInt8]
    private let encodedPayload: ArraySlice<UInt8>

    /// Splits `token` and decodes its header and signature.
    init(_ token: some StringProtocol) throws(JWTError) {
        let bytes = Array(token.utf8)
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformedStructure }
        guard let headerJSON = Base64URL.decode(parts[0]) else { throw .malformedBase64URL(.header) }
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerJSON))
        } catch {
            throw .malformedJSON(.header)
        }
        guard let signature = Base64URL.decode(parts[2]) else { throw .malformedBase64URL(.signature) }
        self.signature = signature
        signingInput = Array(bytes[parts[0].startIndex..<parts[1].endIndex])
        encodedPayload = parts[1]
    }

    /// The decoded payload, once `verify(signingInput, signature)` has said the signature is good.
    func payload(ifVerified verify: (_ signingInput: [UInt8], _ signature: [UInt8]) -> Bool) throws(JWTError) -> [UInt8] {
        guard verify(signingInput, signature) else { throw .badSignature }
        guard let payload = Base64URL.decode(encodedPayload) else { throw .malformedBase64URL(.payload) }
        return payload
    }
}
