import HTTPServer

/// The service token (v1's API token), when one is configured: record writes, admin routes, and
/// every list. ``Authenticator`` compares a request's bearer token with it.
struct BearerAuth: Sendable {
    let token: [UInt8]?

    init(token: String?) { self.token = token.map { Array($0.utf8) } }

    /// Compares without returning early, so the time taken tells nothing of where bytes differ.
    /// `a` is read in place (a request's header bytes, not copied into an array first).
    /// Tokens of another length differ at once (as in Go's `subtle.ConstantTimeCompare`): only
    /// the length is told, and a user token, far longer than a service token, costs no walk.
    static func constantTimeEquals(_ a: Substring.UTF8View, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        // The header's own bytes when they are contiguous (always, for a native string): the
        // generic walk of a `UTF8View` cost a per-user read about 1% (perf, `make bench-peruser`).
        return a.withContiguousStorageIfAvailable { constantTimeEquals($0, b) } ?? constantTimeEquals(Array(a), b)
    }

    static func constantTimeEquals<B: RandomAccessCollection<UInt8>>(_ a: some Collection<UInt8>, _ b: B) -> Bool where B.Index == Int {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        var i = 0
        for x in a {
            difference |= x ^ (i < b.count ? b[b.startIndex + i] : 0)
            i += 1
        }
        while i < b.count {
            difference |= b[b.startIndex + i]
            i += 1
        }
        return difference == 0
    }
}
