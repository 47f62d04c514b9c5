import HTTPServer

/// The service token (v1's API token), when one is configured: record writes, admin routes, and
/// every list. ``Authenticator`` compares a request's bearer token with it.
struct BearerAuth: Sendable {
    let token: [UInt8]?

    init(token: String?) { self.token = token.map { Array($0.utf8) } }

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
