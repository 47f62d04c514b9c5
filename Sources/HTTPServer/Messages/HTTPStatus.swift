/// A response status code (RFC 9110 §15), with a name for every code the server answers with.
///
/// A trivial struct around the code (no allocation, compared and hashed as an `Int`); the
/// reason phrase is looked up from the code when asked for, not stored. Write `.notFound`, not
/// `404`: there is deliberately no integer-literal conversion, so a raw number cannot slip in.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The three-digit code, e.g. `404`.
    public let code: Int

    /// The status with this code (for codes that come from elsewhere, e.g. libmicrohttpd).
    @inlinable public init(code: Int) { self.code = code }

    /// `200 OK`.
    @inlinable public static var ok: HTTPStatus { HTTPStatus(code: 200) }
    /// `201 Created`.
    @inlinable public static var created: HTTPStatus { HTTPStatus(code: 201) }
    /// `204 No Content`.
    @inlinable public static var noContent: HTTPStatus { HTTPStatus(code: 204) }
    /// `304 Not Modified`.
    @inlinable public static var notModified: HTTPStatus { HTTPStatus(code: 304) }
    /// `400 Bad Request`.
    @inlinable public static var badRequest: HTTPStatus { HTTPStatus(code: 400) }
    /// `401 Unauthorized`.
    @inlinable public static var unauthorized: HTTPStatus { HTTPStatus(code: 401) }
    /// `403 Forbidden`.
    @inlinable public static var forbidden: HTTPStatus { HTTPStatus(code: 403) }
    /// `404 Not Found`.
    @inlinable public static var notFound: HTTPStatus { HTTPStatus(code: 404) }
    /// `405 Method Not Allowed`.
    @inlinable public static var methodNotAllowed: HTTPStatus { HTTPStatus(code: 405) }
    /// `409 Conflict`.
    @inlinable public static var conflict: HTTPStatus { HTTPStatus(code: 409) }
    /// `412 Precondition Failed`.
    @inlinable public static var preconditionFailed: HTTPStatus { HTTPStatus(code: 412) }
    /// `413 Content Too Large`.
    @inlinable public static var contentTooLarge: HTTPStatus { HTTPStatus(code: 413) }
    /// `415 Unsupported Media Type`.
    @inlinable public static var unsupportedMediaType: HTTPStatus { HTTPStatus(code: 415) }
    /// `500 Internal Server Error`.
    @inlinable public static var internalServerError: HTTPStatus { HTTPStatus(code: 500) }
    /// `501 Not Implemented`.
    @inlinable public static var notImplemented: HTTPStatus { HTTPStatus(code: 501) }
    /// `503 Service Unavailable`.
    @inlinable public static var serviceUnavailable: HTTPStatus { HTTPStatus(code: 503) }

    /// Not a status: no answer was queued (the client went away first). Only in
    /// ``CompletedRequest/status`` and in a ``Response/later(_:)`` placeholder.
    @inlinable public static var unanswered: HTTPStatus { HTTPStatus(code: 0) }

    /// 4xx or 5xx: the request was refused or failed.
    @inlinable public var isError: Bool { code >= 400 }

    /// The reason phrase of RFC 9110 §15 for the named codes; empty for others.
    public var reasonPhrase: String {
        switch code {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: ""
        }
    }

    /// The code and reason phrase, e.g. `404 Not Found`.
    public var description: String { reasonPhrase.isEmpty ? String(code) : "\(code) \(reasonPhrase)" }
}
