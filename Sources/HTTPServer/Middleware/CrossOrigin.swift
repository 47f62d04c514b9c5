/// CORS (Fetch standard): allowed origins from configuration, preflight answered, the request
/// headers an API takes allowed and the answer headers it sets exposed to scripts.
///
/// Every answer passes through `decorate` exactly once, so each CORS field is sent once: a
/// browser refuses an answer whose `Access-Control-Allow-Origin` holds two values (`*, *`).
public struct CrossOrigin: Sendable {
    public let origins: [String]
    /// `Access-Control-Allow-Headers` of a preflight: the request headers a script may send.
    public let allowedHeaders: String
    /// `Access-Control-Expose-Headers` of an answer: the answer headers a script may read.
    public let exposedHeaders: String

    /// Request headers of HTTP itself that are not CORS-safelisted (a browser asks before
    /// sending them): credentials, conditional requests, an event stream's resumption, and the
    /// language (safelisted only for some values).
    public static let standardRequestHeaders = ["Content-Type", "Authorization", "Accept-Language", "If-Match",
                                                "If-None-Match", "Last-Event-ID"]
    /// Answer headers of HTTP itself that scripts cannot read unless exposed.
    public static let standardAnswerHeaders = ["ETag", "Link", "Location", "Retry-After", "WWW-Authenticate"]

    /// CORS for `origins` (`*` for any), allowing the standard request headers and `requestHeaders`,
    /// exposing the standard answer headers and `answerHeaders`.
    public init(origins: [String], requestHeaders: [String] = [], answerHeaders: [String] = []) {
        self.origins = origins
        self.allowedHeaders = (Self.standardRequestHeaders + requestHeaders).joined(separator: ", ")
        self.exposedHeaders = (Self.standardAnswerHeaders + answerHeaders).joined(separator: ", ")
    }

    /// True when answers depend on the request's `Origin`: a list of origins, each echoed back
    /// when it asks. Such answers carry `Vary: Origin` (all of them, so that a cache never hands
    /// one origin's answer, or an answer to a request without `Origin`, to another origin).
    var variesByOrigin: Bool { !origins.isEmpty && !origins.contains("*") }

    /// The `Access-Control-Allow-Origin` value for this request's `Origin`, or nil.
    func allowedOrigin(_ request: Request) -> String? {
        guard let origin = request.headers["Origin"], !origins.isEmpty else { return nil }
        if origins.contains("*") { return "*" }
        return origins.contains(origin) ? origin : nil
    }

    /// True for a CORS preflight: `OPTIONS` with `Access-Control-Request-Method`.
    static func isPreflight(_ request: Request) -> Bool {
        request.method == .options && request.headers["Access-Control-Request-Method"] != nil
    }

    /// Adds the preflight fields to the router's answer to `OPTIONS` (`204` with `Allow`), for a
    /// preflight from an allowed origin: the methods (those of `Allow`), the request headers
    /// allowed and how long to keep them. The origin fields are added by `decorate`, as for every
    /// other answer.
    public func preflight(_ response: inout Response, for request: Request) {
        guard Self.isPreflight(request), response.status == .noContent, allowedOrigin(request) != nil,
              let methods = response.headers["Allow"] else { return }
        response.headers.add("Access-Control-Allow-Methods", methods)
        response.headers.add("Access-Control-Allow-Headers", allowedHeaders)
        response.headers.add("Access-Control-Max-Age", "600")
    }

    /// Adds the origin fields to an answer (preflight or actual): `Access-Control-Allow-Origin`
    /// when the origin is allowed, `Access-Control-Expose-Headers` on actual answers, and
    /// `Vary: Origin` when the answer depends on the origin. Call it once per answer.
    public func decorate(_ response: inout Response, for request: Request) {
        if variesByOrigin { response.headers.add("Vary", "Origin") }
        guard let origin = allowedOrigin(request) else { return }
        response.headers.add("Access-Control-Allow-Origin", origin)
        if !Self.isPreflight(request) {
            response.headers.add("Access-Control-Expose-Headers", exposedHeaders)
        }
    }
}
