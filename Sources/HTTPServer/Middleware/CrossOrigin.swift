/// CORS (Fetch standard): allowed origins from configuration, preflight answered, `ETag`,
/// `Link` and `Location` exposed to scripts.
public struct CrossOrigin: Sendable {
    public let origins: [String]
    public static let allowedHeaders = "Content-Type, Authorization, If-None-Match, Last-Event-ID"
    public static let exposedHeaders = "ETag, Link, Location"

    public init(origins: [String]) { self.origins = origins }

    /// The `Access-Control-Allow-Origin` value for this request's `Origin`, or nil.
    func allowedOrigin(_ request: Request) -> String? {
        guard let origin = request.headers["Origin"], !origins.isEmpty else { return nil }
        if origins.contains("*") { return "*" }
        return origins.contains(origin) ? origin : nil
    }

    /// The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`) on a path that
    /// has routes with `allowedMethods`; nil when the request is no preflight.
    public func preflight(_ request: Request, allowedMethods: [String]) -> Response? {
        guard request.method == "OPTIONS" else { return nil }
        var response = Response(status: 204)
        response.headers.add("Allow", (allowedMethods + ["OPTIONS"]).joined(separator: ", "))
        if let origin = allowedOrigin(request), request.headers["Access-Control-Request-Method"] != nil {
            response.headers.add("Access-Control-Allow-Origin", origin)
            response.headers.add("Access-Control-Allow-Methods", (allowedMethods + ["OPTIONS"]).joined(separator: ", "))
            response.headers.add("Access-Control-Allow-Headers", Self.allowedHeaders)
            response.headers.add("Access-Control-Max-Age", "600")
            if origin != "*" { response.headers.add("Vary", "Origin") }
        }
        return response
    }

    /// Adds the CORS headers of an actual (non-preflight) answer.
    public func decorate(_ response: inout Response, for request: Request) {
        guard let origin = allowedOrigin(request) else { return }
        response.headers.add("Access-Control-Allow-Origin", origin)
        response.headers.add("Access-Control-Expose-Headers", Self.exposedHeaders)
        if origin != "*" { response.headers.add("Vary", "Origin") }
    }
}
