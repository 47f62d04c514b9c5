#if canImport(Glibc)
import Glibc
#endif

/// A request method: the methods of RFC 9110 §9 and `PATCH` (RFC 5789) by name, any other token
/// as ``other(_:)``.
///
/// Routes, guards and checks are written against cases the compiler knows, so a misspelt method
/// cannot silently match nothing. Methods are case-sensitive: `get` is ``other(_:)``, not ``get``.
/// Parsing a known method allocates nothing.
public enum HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    case get, head, post, put, delete, options, patch, connect, trace
    /// A method token the server has no name for, as sent.
    case other(String)

    /// The method named by `token` (as sent on the request line).
    public init(_ token: String) {
        self = Self.known.first { $0.rawValue == token } ?? .other(token)
    }

    /// The method named by the request line's C string: a known method is told without making
    /// a string of it first (`String(cString:)` was 170 instructions a request, callgrind).
    init(cString token: UnsafePointer<CChar>) {
        for method in Self.known where method.rawValue.withCString({ strcmp($0, token) }) == 0 {
            self = method
            return
        }
        self = .other(String(cString: token))
    }

    /// Every method with a case: the names are ``rawValue``'s, the one place they are spelt.
    private static let known: [HTTPMethod] = [.get, .head, .post, .put, .delete, .options, .patch, .connect, .trace]

    /// The method token as it goes on the wire, e.g. `GET`.
    public var rawValue: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .patch: "PATCH"
        case .connect: "CONNECT"
        case .trace: "TRACE"
        case .other(let token): token
        }
    }

    /// The method token, e.g. `GET`.
    public var description: String { rawValue }

    /// Whether the method only reads (`GET`, `HEAD`): what caches and write guards care about.
    public var isRead: Bool { self == .get || self == .head }
}
