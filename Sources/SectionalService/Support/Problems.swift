import HTTPServer
import ListModel

/// The problem answers, one constructor per slug, so every handler says the same thing
/// the same way.
enum Problem {
    /// Client input as quoted in a detail: at most 64 characters, then "…".
    static func echo(_ input: some StringProtocol) -> String { HTTPError.echo(input) }

    static func invalidRequest(_ detail: String) -> HTTPError { HTTPError(.badRequest, "invalid-request", detail: detail) }
    static func invalidJSON(_ detail: String) -> HTTPError { HTTPError(.badRequest, "invalid-json", title: "Invalid JSON", detail: detail) }
    static func invalidName(_ what: String, _ name: String) -> HTTPError {
        HTTPError(.badRequest, "invalid-name", detail: "'\(echo(name))' is not a valid \(what) name: use 1–128 of A–Z a–z 0–9 . _ ~ -, starting with a letter or digit.")
    }
    static func unsupportedMediaType(_ mediaTypes: [String] = ["application/json"]) -> HTTPError {
        // A PATCH's says which patch documents it takes (RFC 5789 §2.2).
        let patch = mediaTypes.contains("application/merge-patch+json")
        return HTTPError(.unsupportedMediaType, "unsupported-media-type",
                         detail: "Send the body as Content-Type: \(mediaTypes.joined(separator: " or ")).",
                         headers: patch ? ["Accept-Patch": mediaTypes.joined(separator: ", ")] : [:])
    }
    static func unsupportedContentEncoding(_ coding: String) -> HTTPError {
        HTTPError(.unsupportedMediaType, "unsupported-media-type",
                  detail: "Bodies are sent without a content coding, not Content-Encoding: \(echo(coding)).",
                  headers: ["Accept-Encoding": "identity"])
    }
    static func unsupportedCharset(_ charset: String) -> HTTPError {
        HTTPError(.unsupportedMediaType, "unsupported-media-type",
                  detail: "Bodies are UTF-8: send charset=utf-8 or no charset, not '\(echo(charset))'.")
    }
    /// A view past its limits: `bytes` is the registry's ``ViewRegistry/hiddenBytesLimit``.
    static func tooManyHiddenKeys(bytes: Int) -> HTTPError {
        let size = bytes % 1024 == 0 ? "\(bytes / 1024) KiB" : "\(bytes) bytes"
        return invalidRequest("A view hides at most \(ViewRegistry.maxHiddenKeys) section keys, \(size) of them in all (UTF-8).")
    }
    static func unauthorized() -> HTTPError {
        HTTPError(.unauthorized, "unauthorized", detail: "This needs the service token: Authorization: Bearer <token>.",
                  headers: ["WWW-Authenticate": "Bearer realm=\"sectional\""])
    }
    /// A valid token that may not do this (a user token on a write or admin route).
    static func forbidden(_ detail: String) -> HTTPError { HTTPError(.forbidden, "forbidden", detail: detail) }

    /// A version this instance has not applied yet (after waiting a second for it).
    static func notCaughtUp(_ version: Int64, applied: Int64) -> HTTPError {
        HTTPError(.serviceUnavailable, "not-caught-up", title: "Not caught up",
                  detail: "This instance has not applied version \(version) yet (it is at \(applied)); try again.",
                  headers: ["Retry-After": "1"])
    }
    static func listNotFound(_ list: String) -> HTTPError { HTTPError(.notFound, "list-not-found", detail: "There is no list named '\(echo(list))'.") }
    static func recordNotFound(_ collection: String, _ id: String) -> HTTPError {
        HTTPError(.notFound, "record-not-found", detail: "There is no record '\(echo(id))' in collection '\(echo(collection))'.")
    }
    static func viewNotFound(_ view: String) -> HTTPError {
        HTTPError(.notFound, "view-not-found", detail: "There is no view '\(echo(view))' of this list (views expire when unused).")
    }
    /// `index` as the request gave it (a number past `Int`'s range is read as `Int.max`, and
    /// quoted as sent).
    static func sectionNotFound(_ index: String, count: Int) -> HTTPError {
        HTTPError(.notFound, "section-not-found", detail: "Section \(echo(index)) does not exist; the list has \(counted(count, "section")).")
    }
    /// A section change that names the section's key, made after the list moved on so far that
    /// `index` is another section: `412`, with the list's `version`.
    static func sectionMoved(_ index: Int, key: String, expected: String, version: Int64) -> HTTPError {
        HTTPError(.preconditionFailed, "precondition-failed", title: "Precondition failed",
                  detail: "Section \(index) is '\(echo(key))' now, not '\(echo(expected))': the list has moved on.",
                  extensions: [("version", String(version))])
    }
    /// `tag` as the request gave it, as for ``sectionNotFound(_:count:)``.
    static func tagNotFound(_ tag: String) -> HTTPError { HTTPError(.notFound, "tag-not-found", detail: "No row holds tag \(echo(tag)).") }
    static func rowNotFound(_ id: String) -> HTTPError { HTTPError(.notFound, "row-not-found", detail: "No row has id '\(echo(id))'.") }
    static func indexPathNotFound(_ sectionType: String, _ rowType: String) -> HTTPError {
        HTTPError(.notFound, "index-path-not-found", detail: "No row of type '\(echo(rowType))' in a section of type '\(echo(sectionType))'.")
    }
    static func invalidPageSize(_ text: String) -> HTTPError {
        HTTPError(.badRequest, "invalid-page-size", detail: "pageSize must be a whole number from 0 (0 means the default, 50; above 500 means 500); got '\(echo(text))'.")
    }
    static func invalidPageToken(_ detail: String) -> HTTPError { HTTPError(.badRequest, "invalid-page-token", detail: detail) }
    static func invalidVersion(_ detail: String) -> HTTPError { HTTPError(.badRequest, "invalid-version", detail: detail) }
    /// `server.maxEventStreams` are open; the client may try again after `Retry-After` seconds.
    static func tooManyEventStreams(limit: Int) -> HTTPError {
        HTTPError(.serviceUnavailable, "too-many-event-streams", title: "Too many event streams",
                  detail: "The server already holds its limit of \(limit) event streams; try again later.",
                  headers: ["Retry-After": "5"])
    }
    /// The server is stopping: an event stream asked for on a connection kept alive from before
    /// is refused, so it cannot hold the stop up; the client reconnects (to another instance, or
    /// this one restarted) after `Retry-After` seconds.
    static func draining() -> HTTPError {
        HTTPError(.serviceUnavailable, "draining", title: "Draining",
                  detail: "The server is stopping; reconnect shortly.", headers: ["Retry-After": "1"])
    }
}
