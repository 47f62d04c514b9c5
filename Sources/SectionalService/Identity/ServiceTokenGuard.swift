import HTTPServer

/// The guard of record writes and admin routes (a ``Router`` group guard): when a service token
/// is configured, only it passes. No token → `401 unauthorized` (`WWW-Authenticate: Bearer`); a
/// token that is neither the service token nor a valid user token → `401` with
/// `error="invalid_token"`; a valid user token → `403 forbidden`. With no service token
/// configured everything passes (a loopback server's writes stay open, as in v1).
struct ServiceTokenGuard: Sendable {
    /// The guard's name in ``Router/routes``.
    static let name = "service-token"

    let authenticator: Authenticator

    func check(_ request: Request) throws(HTTPError) {
        guard authenticator.service.token != nil else { return }
        switch try authenticator.caller(request) {
        case .service: return
        case .user: throw Problem.forbidden("This route needs the service token; a user token may only read lists.")
        case .anonymous: throw Problem.unauthorized()
        }
    }
}
