import Foundation
@testable import Identity

/// Fuzz target: JWT verification and JWKS documents.
///
/// Input: a mode byte, then
/// - mode 0: a token as a client sends it, verified against a fixed `HS256` secret and a fixed
///   key set (one RSA and one P-256 key, with `kid`s);
/// - mode 1: a JOSE header and a claims payload separated by a NUL byte, which the harness
///   encodes and MACs with the fixed secret, so that the fuzzer reaches header and claims
///   decoding behind a valid signature;
/// - mode 2: a JWKS document.
/// Every path must answer a value or a typed error (`JWTError`, `JSONWebKeySetError`); a token
/// accepted has a non-empty subject and had not expired at the fixed time.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let body = Array(bytes[1...])
    switch bytes[0] % 3 {
    case 0:
        verify(String(decoding: body, as: UTF8.self))
    case 1:
        let split = body.firstIndex(of: 0) ?? body.endIndex
        let header = body[..<split]
        let payload = split < body.endIndex ? body[(split + 1)...] : []
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        guard let mac = LibCrypto.hmacSHA256(key: secret, message: Array(signingInput.utf8)) else {
            fatalError("libcrypto could not compute an HMAC")
        }
        verify(signingInput + "." + Base64URL.encode(mac))
    default:
        _ = try? JSONWebKeySet(json: body)
    }
    return 0
}

private func verify(_ token: String) {
    for verifier in verifiers {
        guard let claims = try? verifier.verify(token, now: now) else { continue }
        precondition(!claims.subject.isEmpty, "a token was accepted without a subject")
        precondition(claims.expiresAt.timeIntervalSince1970 + 60 > now.timeIntervalSince1970, "an expired token was accepted")
    }
}

/// A fixed time (2026-01-01), so the same input always gives the same answer.
private let now = Date(timeIntervalSince1970: 1_767_225_600)

private let secret = Array("fuzzing-secret-of-at-least-32-bytes!".utf8)

private let keySetJSON = #"""
{"keys":[
 {"kty":"RSA","kid":"rsa","alg":"RS256","use":"sig","e":"AQAB",
  "n":"oR69NXYWT09IMmz2vVU7D1yIdsXRFQ0r_suCBlzmZ5qGpclV4gfPBwwC82iK4pySsY0PfbbH8sJYSD8MxnIdrm6yYG2DLN4OR7Ou3lNmXZipYKY11S3Ld2CKRWRqHiVyGIACzmzAWZpcAVT7DfATyUGer9_WVU8Dd1EU-9XwHUqwsqYirttRM3oG-Zu5wYOAI4Nk23lMYhqWWfCh5VIaHV6kweAK2fwGwrKrd4bzcdTc1CyOF3teQonKLS0PYx1vADE82eaZ73ZZOyUhd3akYzietIeFuJScv7opkUQihLnlpM8pfbG-t_agy6Gz6zcPs0nvg9TaTiXJ6_CJkOSQ8Q"},
 {"kty":"EC","kid":"ec","alg":"ES256","use":"sig","crv":"P-256",
  "x":"BXjUnXUHD3Wv7KVkz3CNUki2NNRnJvID9BJdWxmQATw","y":"bUzn_Se2bad197EAw96P0_DyZNQIoJQXV4_47_vcMNc"}
]}
"""#

/// A verifier with the secret and both keys (issuer and audience required), and one with the
/// secret alone (no issuer or audience).
private let verifiers: [JWTVerifier] = {
    do {
        let keySet = try JSONWebKeySet(json: Array(keySetJSON.utf8))
        return [try JWTVerifier(hs256Secret: secret, keySet: keySet, issuer: "https://issuer.example", audience: "sectional"),
                try JWTVerifier(hs256Secret: secret)]
    } catch {
        fatalError("the fixed verifiers cannot be made: \(error)")
    }
}()
