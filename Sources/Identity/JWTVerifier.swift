import Foundation

/// Verifies user tokens: JWS compact JWTs signed `HS256` with a shared secret, or `RS256` /
/// `ES256` with a key from a JWKS document. Pure apart from libcrypto: the current time is an
/// argument, nothing is read from files or the environment.
///
/// The key decides the algorithm, never the token alone: a `kid` naming a JWKS key means that
/// key's algorithm, and an `HS256` token is checked only against the configured secret, so a
/// token MACed with a public key's bytes is refused. Claims are decoded only after the
/// signature verifies; then `exp` (required) and `nbf` are checked with the leeway, `iss` and
/// `aud` when configured, and `sub` must be a non-empty string.
public struct JWTVerifier: Sendable {
    /// The longest token accepted, in bytes.
    public static let maximumTokenBytes = 8192
    /// The shortest `HS256` secret accepted, in bytes (the hash's size, RFC 7518 §3.2).
    public static let minimumSecretBytes = 32

    private let secret: [UInt8]?
    private let keySet: JSONWebKeySet?
    private let issuer: String?
    private let audience: String?
    private let leeway: Double

    /// A verifier with an `HS256` secret, a set of public keys, or both.
    ///
    /// - Parameters:
    ///   - issuer: when set, `iss` must equal it.
    ///   - audience: when set, `aud` (a string or an array of strings) must contain it.
    ///   - leewaySeconds: how far past `exp` or before `nbf` a token is still accepted.
    public init(hs256Secret: [UInt8]? = nil, keySet: JSONWebKeySet? = nil, issuer: String? = nil,
                audience: String? = nil, leewaySeconds: Int = 60) throws(JWTVerifierConfigurationError) {
        guard hs256Secret != nil || keySet != nil else { throw .noKeys }
        if let hs256Secret, hs256Secret.count < Self.minimumSecretBytes { throw .secretTooShort(bytes: hs256Secret.count) }
        guard leewaySeconds >= 0 else { throw .negativeLeeway }
        secret = hs256Secret
        self.keySet = keySet
        self.issuer = issuer
        self.audience = audience
        leeway = Double(leewaySeconds)
    }

    /// When a token whose `exp` is `expiry` (seconds since 1970) stops being accepted: `exp`
    /// plus the leeway (accepted before that moment, refused from it on).
    public func acceptedUntil(expiry: Double) -> Double { expiry + leeway }

    /// The verified claims of `token` at time `now`, or why it is refused.
    public func verify(_ token: some StringProtocol, now: Date) throws(JWTError) -> VerifiedClaims {
        guard token.utf8.count <= Self.maximumTokenBytes else { throw .tooLarge(bytes: token.utf8.count) }
        let jws = try CompactJWS(token)
        guard jws.header.crit == nil else { throw .unsupportedCriticalHeader }
        let (algorithm, key) = try self.key(for: jws.header)
        let payload = try jws.payload { signingInput, signature in
            switch key {
            case .secret(let secret):
                guard let mac = LibCrypto.hmacSHA256(key: secret, message: signingInput) else { return false }
                return LibCrypto.constantTimeEqual(mac, signature)
            case .public(let key):
                return key.verifies(signature: signature, of: signingInput)
            }
        }
        return try claims(payload, algorithm: algorithm, now: now.timeIntervalSince1970)
    }

    private enum Key {
        case secret([UInt8])
        case `public`(PublicKey)
    }

    /// The algorithm and key to verify a token with this header, chosen by the configuration.
    private func key(for header: CompactJWS.Header) throws(JWTError) -> (JWSAlgorithm, Key) {
        guard let name = header.alg, let algorithm = JWSAlgorithm(rawValue: name) else {
            throw .unsupportedAlgorithm(header.alg ?? "")
        }
        if let keyID = header.kid, let key = keySet?.key(named: keyID) {
            guard key.algorithm == algorithm else { throw .algorithmMismatch(token: name, key: key.algorithm.rawValue) }
            return (algorithm, .public(key))
        }
        switch algorithm {
        case .hs256:
            guard let secret else { throw .noKeyForAlgorithm(name) }
            return (algorithm, .secret(secret))
        case .rs256, .es256:
            guard let keySet else { throw .noKeyForAlgorithm(name) }
            guard header.kid == nil, keySet.entries.count == 1 else { throw .unknownKeyID(header.kid) }
            let key = keySet.entries[0].key
            guard key.algorithm == algorithm else { throw .algorithmMismatch(token: name, key: key.algorithm.rawValue) }
            return (algorithm, .public(key))
        }
    }

    /// The checked claims of a verified payload, at `now` seconds since 1970.
    private func claims(_ payload: [UInt8], algorithm: JWSAlgorithm, now: Double) throws(JWTError) -> VerifiedClaims {
        let claims: RegisteredClaims
        do {
            claims = try JSONDecoder().decode(RegisteredClaims.self, from: Data(payload))
        } catch {
            throw .malformedJSON(.payload)
        }
        if let claim = claims.invalidTimeClaim { throw .invalidTimeClaim(claim) }
        guard let expiry = claims.expiry else { throw .missingExpiry }
        guard now < acceptedUntil(expiry: expiry) else { throw .expired }
        if let notBefore = claims.notBefore, now + leeway < notBefore { throw .notYetValid }
        // By code points: Swift's `==` takes "Kitchen" and "\u{212A}itchen" (a Kelvin sign) as one.
        if let issuer, !(claims.issuer.map { $0.utf8.elementsEqual(issuer.utf8) } ?? false) { throw .issuerMismatch }
        if let audience, !(claims.audience ?? []).contains(where: { $0.utf8.elementsEqual(audience.utf8) }) { throw .audienceMismatch }
        guard let subject = claims.subject, !subject.isEmpty else { throw .missingSubject }
        return VerifiedClaims(subject: subject, issuer: claims.issuer, audience: claims.audience ?? [],
                              expiresAt: Date(timeIntervalSince1970: expiry),
                              notBefore: claims.notBefore.map(Date.init(timeIntervalSince1970:)),
                              algorithm: algorithm, payload: payload)
    }
}

/// Why a verifier could not be configured (found when the service starts).
public enum JWTVerifierConfigurationError: Error, Equatable, Sendable {
    /// Neither an `HS256` secret nor a key set.
    case noKeys
    /// The `HS256` secret is shorter than ``JWTVerifier/minimumSecretBytes``.
    case secretTooShort(bytes: Int)
    /// The leeway is negative.
    case negativeLeeway
}
