/// Why a user token was refused. Every case is answered the same way over HTTP: `401` with
/// `WWW-Authenticate: Bearer error="invalid_token"` (``status``, ``wwwAuthenticate``); the case
/// itself is for logs and tests, and ``detail`` is safe to show to the caller.
public enum JWTError: Error, Equatable, Sendable {
    /// The token is longer than ``JWTVerifier/maximumTokenBytes``.
    case tooLarge(bytes: Int)
    /// Not three dot-separated parts.
    case malformedStructure
    /// A part is not canonical unpadded base64url.
    case malformedBase64URL(JWTPart)
    /// The header or the payload is not a JSON object of the expected shape.
    case malformedJSON(JWTPart)
    /// The header's `alg` is absent, `none`, or an algorithm this verifier does not accept.
    case unsupportedAlgorithm(String)
    /// The header names extensions that must be understood (`crit`); none are.
    case unsupportedCriticalHeader
    /// No configured key can verify tokens of this algorithm (an `HS256` token when only public
    /// keys are configured: algorithm confusion).
    case noKeyForAlgorithm(String)
    /// The header's `alg` is not the algorithm of the key its `kid` names.
    case algorithmMismatch(token: String, key: String)
    /// The `kid` names no configured key, or is missing where several keys could apply.
    case unknownKeyID(String?)
    /// The signature does not verify.
    case badSignature
    /// `exp` is absent or not a number.
    case missingExpiry
    /// `exp` is passed by more than the leeway.
    case expired
    /// `nbf` is later than now plus the leeway.
    case notYetValid
    /// A time claim (`exp`, `nbf`, `iat`) is not a number.
    case invalidTimeClaim(String)
    /// `iss` is not the configured issuer.
    case issuerMismatch
    /// `aud` (a string or an array of strings) does not contain the configured audience.
    case audienceMismatch
    /// `sub` is absent or not a string.
    case missingSubject

    /// The HTTP status the server answers with: always `401`.
    public var status: Int { 401 }

    /// The problem type slug of the answer.
    public var slug: String { "unauthorized" }

    /// The `WWW-Authenticate` header value of the answer (RFC 6750).
    public var wwwAuthenticate: String { #"Bearer error="invalid_token""# }

    /// A sentence for the problem's `detail`: says what is wrong without echoing token content.
    public var detail: String {
        switch self {
        case .tooLarge: "The token is longer than 8 KiB."
        case .malformedStructure: "The token is not a JWS compact serialization (three base64url parts)."
        case .malformedBase64URL(let part): "The token's \(part.rawValue) is not unpadded base64url."
        case .malformedJSON(let part): "The token's \(part.rawValue) is not a valid JSON object."
        case .unsupportedAlgorithm: "The token's algorithm is not accepted (HS256, RS256, ES256)."
        case .unsupportedCriticalHeader: "The token requires header extensions that are not supported."
        case .noKeyForAlgorithm: "No configured key verifies tokens of this algorithm."
        case .algorithmMismatch: "The token's algorithm is not the algorithm of its key."
        case .unknownKeyID: "The token's key id names no configured key."
        case .badSignature: "The token's signature does not verify."
        case .missingExpiry: "The token has no expiry time (exp)."
        case .expired: "The token has expired."
        case .notYetValid: "The token is not valid yet (nbf)."
        case .invalidTimeClaim(let claim): "The token's \(claim) claim is not a number."
        case .issuerMismatch: "The token's issuer is not accepted."
        case .audienceMismatch: "The token is not meant for this service (aud)."
        case .missingSubject: "The token has no string subject (sub)."
        }
    }
}

/// The three parts of a JWS compact token.
public enum JWTPart: String, Sendable {
    case header, payload, signature
}
