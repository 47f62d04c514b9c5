import HTTPServer

/// Checks `Authorization: Bearer <token>` on record writes when a token is configured.
struct BearerAuth: Sendable {
    let token: [UInt8]?

    init(token: String?) { self.token = token.map { Array($0.utf8) } }

    /// Throws `401 unauthorized` unless the request carries the token (or none is configured).
    func check(_ request: Request) throws(HTTPError) {
        guard let token else { return }
        guard let header = request.headers["Authorization"], header.count > 7,
              header.prefix(7).lowercased() == "bearer ",
              Self.constantTimeEquals(Array(header.dropFirst(7).utf8), token) else {
            throw Problem.unauthorized()
        }
    }

    /// Compares without returning early, so the time taken tells nothing of where bytes differ.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
