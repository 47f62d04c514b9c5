import JSONOutput

/// An error that is also an HTTP answer: an RFC 9457 problem with a slug, a status and a detail.
///
/// Handlers throw it; the server turns it into `application/problem+json` with
/// `"type": "/problems/<slug>"`. Any other error thrown becomes `500 internal` with no internals leaked.
public struct HTTPError: Error, Sendable, Equatable {
    public let status: HTTPStatus
    public let slug: String
    public let title: String
    public let detail: String
    /// Extra header fields for the answer, e.g. `Allow` on 405.
    public var headers: [String: String]
    /// Extension members of the problem object; values are JSON text.
    public var extensions: [(name: String, json: String)]

    public init(_ status: HTTPStatus, _ slug: String, title: String? = nil, detail: String,
                headers: [String: String] = [:], extensions: [(name: String, json: String)] = []) {
        self.status = status
        self.slug = slug
        self.title = title ?? HTTPError.defaultTitle(slug)
        self.detail = detail
        self.headers = headers
        self.extensions = extensions
    }

    public static func == (a: HTTPError, b: HTTPError) -> Bool {
        a.status == b.status && a.slug == b.slug && a.detail == b.detail
    }

    /// The problem+json answer for this error.
    public var response: Response {
        var w = JSONWriter(capacity: 96 + slug.utf8.count + title.utf8.count + detail.utf8.count)
        w.beginObject()
        w.key("type"); w.string("/problems/" + slug)
        w.key("title"); w.string(title)
        w.key("status"); w.int(status.code)
        w.key("detail"); w.string(detail)
        for (name, json) in extensions { w.key(name); w.rawValue(Array(json.utf8)) }
        w.endObject()
        var answer = Response(status: status, body: w.bytes)
        answer.headers.add("Content-Type", "application/problem+json")
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { answer.headers.add(name, value) }
        return answer
    }

    static func defaultTitle(_ slug: String) -> String {
        let words = slug.split(separator: "-").map { String($0) }
        guard let first = words.first else { return "Error" }
        return ([first.prefix(1).uppercased() + first.dropFirst()] + words.dropFirst()).joined(separator: " ")
    }

    /// Longest piece of a request quoted in a detail, in characters.
    public static let echoLimit = 64

    /// Client input as quoted in a detail: at most ``echoLimit`` characters, then "…".
    public static func echo(_ input: some StringProtocol) -> String {
        input.count <= echoLimit ? String(input) : String(input.prefix(echoLimit)) + "…"
    }

    public static func notFound(_ path: String) -> HTTPError {
        HTTPError(.notFound, "not-found", detail: "No route matches \(echo(path)).")
    }

    public static func methodNotAllowed(_ method: HTTPMethod, allowed: [HTTPMethod]) -> HTTPError {
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        return HTTPError(.methodNotAllowed, "method-not-allowed", detail: "\(echo(method.rawValue)) is not allowed here; use \(list).",
                         headers: ["Allow": list])
    }

    /// A query parameter given more than once: which value is meant is not for the server to guess.
    public static func repeatedParameter(_ name: String) -> HTTPError {
        HTTPError(.badRequest, "invalid-request", detail: "The query parameter \(echo(name)) is given more than once; give it once.")
    }

    /// A path segment or query part that is not UTF-8 once percent-decoded (`%FF`): refused
    /// rather than read with U+FFFD in its place, which would search, filter or name something
    /// the client did not send.
    public static let targetNotUTF8 = HTTPError(.badRequest, "invalid-request",
                                                detail: "The request target is not UTF-8 once percent-decoded (%FF, for one, is not); percent-encode UTF-8 bytes only.")

    public static func bodyTooLarge(limit: Int) -> HTTPError {
        HTTPError(.contentTooLarge, "body-too-large", detail: "The request body is larger than \(limit) bytes.")
    }

    public static let internalError = HTTPError(.internalServerError, "internal", detail: "The server could not answer this request.")

    /// The request's target and header fields took the connection's memory its answer needs.
    public static let noRoomForAnswer = HTTPError(.badRequest, "invalid-request",
                                                  detail: "The request's target and header fields leave no room for its answer: send fewer query parameters or header fields.")
}
