import Foundation

/// A problem answer (RFC 9457) from the server, or an answer the client could not read.
public struct SectionalError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The problem's slug (`list-not-found`, `invalid-page-token`, …): the last part of its `type`.
    /// `unreadable-answer` when the server's answer was not what the API promises.
    public let slug: String
    /// The HTTP status.
    public let status: Int
    /// The problem's title.
    public let title: String
    /// What went wrong, for people.
    public let detail: String
    /// The problem says to read the list again from its first page (its `reload: true`): a
    /// `400 invalid-page-token` for a walk the list's definition changed under.
    public let reload: Bool
    /// The list's version the problem names (its `version`): where the list is now, for a `412
    /// precondition-failed` section change made after the list moved on.
    public let version: Int64?
    /// The records the problem names (its `ids`): those whose expected version or existence did
    /// not hold, for a `412 precondition-failed` record or batch write.
    public let ids: [String]?
    /// The answer's `Retry-After` (seconds or an HTTP date), when it had one: how long the server
    /// asks a client to wait before trying again (a `503`).
    public let retryAfter: String?

    /// A problem from its parts.
    public init(slug: String, status: Int, title: String = "", detail: String, reload: Bool = false, version: Int64? = nil,
                ids: [String]? = nil, retryAfter: String? = nil) {
        self.slug = slug
        self.status = status
        self.title = title
        self.detail = detail
        self.reload = reload
        self.version = version
        self.ids = ids
        self.retryAfter = retryAfter
    }

    /// The server is away rather than refusing: no answer (a network error, status 0), or `502`,
    /// `503` or `504` — the server's own `503`, or a proxy in front of it (the nginx of a
    /// deployment answers `502` while every instance restarts). Worth trying again later.
    public var serverAway: Bool { [0, 502, 503, 504].contains(status) }

    /// `status slug: detail`.
    public var description: String { "\(status) \(slug): \(detail)" }

    /// The problem a non-2xx answer carries; a body that is no problem document still gives its status.
    static func from(status: Int, body: Data, retryAfter: String? = nil) -> SectionalError {
        struct Problem: Decodable { let type: String?, title: String?, detail: String?, reload: Bool?, version: Int64?, ids: [String]? }
        guard let problem = try? JSONDecoder().decode(Problem.self, from: body), let type = problem.type else {
            let text = String(decoding: body.prefix(300), as: UTF8.self)
            return SectionalError(slug: "http-\(status)", status: status, detail: text, retryAfter: retryAfter)
        }
        let slug = type.split(separator: "/").last.map(String.init) ?? type
        return SectionalError(slug: slug, status: status, title: problem.title ?? "", detail: problem.detail ?? "",
                              reload: problem.reload ?? false, version: problem.version, ids: problem.ids, retryAfter: retryAfter)
    }

    /// An answer that could not be decoded.
    static func unreadable(_ what: String, status: Int) -> SectionalError {
        SectionalError(slug: "unreadable-answer", status: status, title: "Unreadable answer", detail: what)
    }
}
