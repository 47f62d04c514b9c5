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
        var text = "{\"type\":\"/problems/\(slug)\",\"title\":\(JSONText.quote(title)),\"status\":\(status.code),\"detail\":\(JSONText.quote(detail))"
        for (name, json) in extensions { text += ",\(JSONText.quote(name)):\(json)" }
        text += "}"
        var answer = Response(status: status, body: Array(text.utf8))
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

    public static func bodyTooLarge(limit: Int) -> HTTPError {
        HTTPError(.contentTooLarge, "body-too-large", detail: "The request body is larger than \(limit) bytes.")
    }

    public static let internalError = HTTPError(.internalServerError, "internal", detail: "The server could not answer this request.")
}

/// Minimal JSON text helpers for the server's own answers.
public enum JSONText {
    /// `text` as a JSON string literal (RFC 8259 §7).
    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
