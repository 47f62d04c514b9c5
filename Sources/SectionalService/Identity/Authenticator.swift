import Foundation
import HTTPServer
import Identity
import ListModel

/// Establishes the ``Caller`` of a request from `Authorization: Bearer <token>`: the service
/// token (compared in constant time), else a user token checked by the ``JWTVerifier``.
struct Authenticator: Sendable {
    let service: BearerAuth
    let verifier: JWTVerifier?
    /// The current time, injected so tests can move it.
    let now: @Sendable () -> Date
    /// Tokens verified before (until their `exp`).
    let verified = VerifiedTokens()

    init(service: BearerAuth, verifier: JWTVerifier? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        self.service = service
        self.verifier = verifier
        self.now = now
    }

    /// Who sent `request`: `.anonymous` without `Authorization`; `401` with
    /// `WWW-Authenticate: Bearer error="invalid_token"` for a token that is neither the service
    /// token nor a valid user token, and with `Bearer realm="sectional"` for another scheme.
    func caller(_ request: Request) throws(HTTPError) -> Caller {
        guard let (header, repeated) = request.headers.single("Authorization") else { return .anonymous }
        // One credential: with two, a proxy reading the other would disagree on who is calling.
        guard !repeated else {
            throw Self.invalidRequest("Send one Authorization header, not several.")
        }
        // Byte-wise: counting Characters of a 200-byte token and copying it into an array were
        // a tenth of a warm per-user page (perf, `make bench-peruser`).
        let utf8 = header.utf8
        guard utf8.count > 7, Self.startsWithBearer(utf8) else {
            if header.lowercased().hasPrefix("bearer") { throw Self.invalidRequest("Send a token after Bearer: Authorization: Bearer <token>.") }
            // Another scheme (Basic, …) is no bearer token at all: the challenge names none of its
            // errors (RFC 6750, section 3.1), as without Authorization.
            throw HTTPError(.unauthorized, "unauthorized", detail: "Send the token as Authorization: Bearer <token>.",
                            headers: ["WWW-Authenticate": "Bearer realm=\"sectional\""])
        }
        // RFC 6750, section 2.1: one or more spaces after the scheme.
        var token = Substring(utf8.dropFirst(7))
        while token.utf8.first == 0x20 { token = token.dropFirst() }
        guard !token.isEmpty else { throw Self.invalidRequest("Send a token after Bearer: Authorization: Bearer <token>.") }
        if let expected = service.token, BearerAuth.constantTimeEquals(token.utf8, expected) { return .service }
        guard let verifier else { throw Self.invalidToken("The token is not accepted.") }
        let time = now()
        if let known = verified.caller(for: Substring(token), now: time.timeIntervalSince1970) { return known }
        let claims: VerifiedClaims
        do {
            claims = try verifier.verify(token, now: time)
        } catch {
            throw HTTPError(HTTPStatus(code: error.status), error.slug, detail: error.detail, headers: ["WWW-Authenticate": error.wwwAuthenticate])
        }
        // Header and payload read as every JSON body is (a repeated member, a lone surrogate, a
        // byte-order mark refused): the header was read by Foundation's decoder, which took the
        // first of two `alg` members where RFC 7515 asks for refusal (or the last).
        let joseHeader = token.utf8.prefix { $0 != UInt8(ascii: ".") }
        guard let headerJSON = Identity.Base64URL.decode(joseHeader), (try? JSONParser.parse(headerJSON)) != nil else {
            throw Self.invalidToken("The token's header is not valid JSON (a repeated member, say).")
        }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(claims.payload)
        } catch {
            throw Self.invalidToken("The token's payload is not valid JSON: \(error).")
        }
        guard case .object(let payload) = parsed else { throw Self.invalidToken("The token's payload is not a JSON object.") }
        let caller = Caller.user(subject: claims.subject, claims: payload)
        verified.remember(Substring(token), caller: caller, expiresAt: claims.expiresAt.timeIntervalSince1970)
        return caller
    }

    /// When `caller`'s token stops being accepted (its `exp` plus the leeway), for a user;
    /// nil for the service token and for anonymous callers, whose access does not run out.
    func acceptedUntil(_ caller: Caller) -> Date? {
        guard case .user = caller, let verifier, let expiry = caller.claim("exp")?.doubleValue else { return nil }
        return Date(timeIntervalSince1970: verifier.acceptedUntil(expiry: expiry))
    }

    /// Whether `utf8` starts with `Bearer ` in any case (at least 7 bytes), compared over its
    /// contiguous bytes (a `zip` of two `UTF8View`s walked them through iterators).
    private static func startsWithBearer(_ utf8: String.UTF8View) -> Bool {
        let prefix: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0x62, 0x65, 0x61, 0x72, 0x65, 0x72, 0x20)  // "bearer "
        let fast = utf8.withContiguousStorageIfAvailable { b in
            b[0] | 0x20 == prefix.0 && b[1] | 0x20 == prefix.1 && b[2] | 0x20 == prefix.2 && b[3] | 0x20 == prefix.3
                && b[4] | 0x20 == prefix.4 && b[5] | 0x20 == prefix.5 && b[6] | 0x20 == prefix.6
        }
        return fast ?? zip(utf8, "bearer ".utf8).allSatisfy({ $0 | 0x20 == $1 })
    }

    /// `401` with `WWW-Authenticate: Bearer`: a read that needs a token came without one.
    static func tokenNeeded(_ list: String) -> HTTPError {
        HTTPError(.unauthorized, "unauthorized", detail: "The list '\(HTTPError.echo(list))' needs Authorization: Bearer <user token>.",
                  headers: ["WWW-Authenticate": "Bearer realm=\"sectional\""])
    }

    /// A malformed `Authorization` (RFC 6750, section 3.1: `invalid_request`, 400).
    static func invalidRequest(_ detail: String) -> HTTPError {
        HTTPError(.badRequest, "invalid-request", detail: detail, headers: ["WWW-Authenticate": #"Bearer error="invalid_request""#])
    }

    static func invalidToken(_ detail: String) -> HTTPError {
        HTTPError(.unauthorized, "unauthorized", detail: detail, headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#])
    }
}
