import Foundation

/// The public keys user tokens may be signed with, read from a JWKS document (RFC 7517):
/// `{"keys": [{"kty": "RSA", "kid": "...", "n": "...", "e": "..."},
///            {"kty": "EC", "crv": "P-256", "kid": "...", "x": "...", "y": "..."}]}`.
///
/// A key's algorithm comes from its type (RSA → `RS256`, EC P-256 → `ES256`). Keys this service
/// cannot use are left out: other types or curves, `use` other than `sig`, `key_ops` without
/// `verify`, or an `alg` other than the one its type gives. A usable key with bad components, a
/// key carrying private material, or two keys with one `kid` make the whole document refused.
public struct JSONWebKeySet: Sendable {
    /// A key and the id tokens name it by (`kid`), if it has one.
    public struct Entry: Sendable {
        public let keyID: String?
        public let key: PublicKey

        public init(keyID: String?, key: PublicKey) {
            self.keyID = keyID
            self.key = key
        }
    }

    /// The usable keys, in document order.
    public let entries: [Entry]

    /// A set of the given keys; refused when two share a `kid` or there are none.
    public init(entries: [Entry]) throws(JSONWebKeySetError) {
        guard !entries.isEmpty else { throw .noUsableKeys }
        var seen = Set<String>()
        for case let id? in entries.map(\.keyID) {
            guard seen.insert(id).inserted else { throw .duplicateKeyID(id) }
        }
        self.entries = entries
    }

    /// The usable keys of a JWKS document.
    public init(json: [UInt8]) throws(JSONWebKeySetError) {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(json))
        } catch {
            throw .malformedJSON
        }
        var entries: [Entry] = []
        for (index, jwk) in document.keys.enumerated() {
            if let entry = try Self.entry(jwk, index: index) { entries.append(entry) }
        }
        try self.init(entries: entries)
    }

    /// The key named `keyID`.
    func key(named keyID: String) -> PublicKey? {
        entries.first { $0.keyID == keyID }?.key
    }

    private static func entry(_ jwk: JWK, index: Int) throws(JSONWebKeySetError) -> Entry? {
        // Private or secret material refuses the document whatever the entry is for (it was
        // checked only on keys the set would use, so a leaked secret in another went unnoticed).
        guard jwk.d == nil, jwk.p == nil, jwk.q == nil, jwk.k == nil else { throw .privateKeyMaterial(index: index) }
        let algorithm: JWSAlgorithm
        switch (jwk.kty, jwk.crv) {
        case ("RSA", _): algorithm = .rs256
        case ("EC", "P-256"): algorithm = .es256
        default: return nil
        }
        if let use = jwk.use, use != "sig" { return nil }
        if let operations = jwk.key_ops, !operations.contains("verify") { return nil }
        if let alg = jwk.alg, alg != algorithm.rawValue { return nil }
        let key: PublicKey?
        switch algorithm {
        case .rs256:
            guard let n = jwk.n.flatMap(Base64URL.decode), let e = jwk.e.flatMap(Base64URL.decode) else {
                throw .invalidKey(index: index)
            }
            key = PublicKey.rsa(modulus: n, exponent: e)
        case .es256:
            guard let x = jwk.x.flatMap(Base64URL.decode), let y = jwk.y.flatMap(Base64URL.decode) else {
                throw .invalidKey(index: index)
            }
            key = PublicKey.p256(x: x, y: y)
        case .hs256:
            key = nil
        }
        guard let key else { throw .invalidKey(index: index) }
        return Entry(keyID: jwk.kid, key: key)
    }

    private struct Document: Decodable {
        let keys: [JWK]
    }

    /// The members of a JWK this service reads (RFC 7517 §4, RFC 7518 §6).
    private struct JWK: Decodable {
        let kty: String?, kid: String?, use: String?, alg: String?, key_ops: [String]?
        let n: String?, e: String?, crv: String?, x: String?, y: String?
        let d: String?, p: String?, q: String?, k: String?
    }
}

/// Why a JWKS document was refused (a configuration error, found when the service starts).
public enum JSONWebKeySetError: Error, Equatable, Sendable {
    /// Not a JSON object with a `keys` array of JWK objects.
    case malformedJSON
    /// The key at this index in `keys` has missing or bad components (not base64url, a point not
    /// on P-256, an RSA modulus under 2048 bits).
    case invalidKey(index: Int)
    /// The key at this index carries private material (`d`, `p`, `q`); publish public keys only.
    case privateKeyMaterial(index: Int)
    /// Two keys share this `kid`.
    case duplicateKeyID(String)
    /// No key in the document is usable (`RS256` RSA or `ES256` P-256 signing keys).
    case noUsableKeys
}
