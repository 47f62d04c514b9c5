import HTTPServer

/// Entity tags for list reads: a function of the list version, the definition, the view and
/// (on a per-user list) the user's partition, so an edited config after a restart never answers
/// a stale `304`, and one user's tag never matches another's answer.
enum EntityTag {
    static func of(version: Int64, definition: UInt64, view: UInt64, partition: UInt64? = nil, query: UInt64? = nil) -> String {
        // Written byte by byte: interpolation with `String(_:radix:)` and padding was a few
        // percent of a cached first page (perf, `make bench`).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + 20 + 3 * 17)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: String(version).utf8)
        appendHex(definition, to: &bytes)
        appendHex(view, to: &bytes)
        if let partition { appendHex(partition, to: &bytes) }
        if let query { appendHex(query, to: &bytes) }
        bytes.append(UInt8(ascii: "\""))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Builds the answer and tags it; when it is a success, answers `412 precondition-failed`
    /// instead when `If-Match` names no form of `tag` (nor `*`), else `304 Not Modified` when
    /// `If-None-Match` names `tag` (or `*`). The answer is built first because a condition
    /// applies only to what would be a `2xx` (RFC 9110 §13.2.1): a row that does not exist or a
    /// parameter out of range is its error, whatever tag the client sends. (Every read of a list
    /// shares the list's tag, so a tag from one URL matches any other.) Most answers come from
    /// the answer cache, so building one costs a look-up.
    static func answer(_ request: Request, tag: String, _ build: () throws -> Response) rethrows -> Response {
        var response = try build()
        guard (200..<300).contains(response.status.code) else {
            response.headers.add("ETag", tag)
            return response
        }
        // `If-Match` first (RFC 9110 §13.2.2): the answer is only for the tags it names, compared strongly.
        if let condition = request.headers.list("If-Match"), !matches(condition, tag, strongly: true) {
            return HTTPError(.preconditionFailed, "precondition-failed", title: "Precondition failed",
                             detail: "If-Match names no tag of this answer (it changed, or the tag is another's).").response
        }
        if let condition = request.headers.list("If-None-Match"), matches(condition, tag) {
            // The `304` keeps its `200`'s body, which is never sent: the gzip step tells from it
            // whether the `200`'s tag is the gzip one, and libmicrohttpd sends its length as the
            // `304`'s `Content-Length`, the one value RFC 9110 §8.6 allows there.
            var notModified = Response(status: .notModified, body: response.body)
            notModified.memo = response.memo
            response = notModified
        }
        response.headers.add("ETag", tag)
        return response
    }

    /// The `If-Match` condition of a read whose answer has no tag (a `changes` batch, an event
    /// stream): only `*` holds (RFC 9110 §13.1.1: no tag can match an answer without one), so any
    /// other `If-Match` is `412 precondition-failed`, as on every other read whose tag it does
    /// not name. Checked once the read is known to succeed (§13.2.1).
    static func checkUntagged(_ request: Request) throws(HTTPError) {
        guard let condition = request.headers.list("If-Match"),
              !condition.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "*" }) else { return }
        throw HTTPError(.preconditionFailed, "precondition-failed", title: "Precondition failed",
                        detail: "If-Match names a tag, and this answer has none (only * holds).")
    }

    /// Whether a list of tags or `*` names `tag` (its `-gzip` form is the same answer): compared
    /// weakly for `If-None-Match` (a `W/` prefix is ignored, RFC 9110 §13.1.2), strongly for
    /// `If-Match` (a weak tag never matches, §13.1.1).
    static func matches(_ condition: String, _ tag: String, strongly: Bool = false) -> Bool {
        condition.split(separator: ",").contains { candidate in
            var candidate = candidate.trimmingCharacters(in: .whitespaces)
            if candidate == "*" { return true }
            if candidate.hasPrefix("W/") {
                if strongly { return false }
                candidate.removeFirst(2)
            }
            if candidate.hasSuffix("-gzip\"") { candidate = String(candidate.dropLast(6)) + "\"" }
            return candidate == tag
        }
    }

    /// What an entity tag of a condition's list names: its opaque text without the quotes and a
    /// `-gzip` suffix (the same resource, compressed); nil for a weak tag (`W/`) unless
    /// `weakMatches` (`If-None-Match`), and for an item that is no quoted tag.
    static func opaque(_ item: Substring, weakMatches: Bool) -> Substring? {
        var tag = item
        if tag.hasPrefix("W/") {
            guard weakMatches else { return nil }
            tag = tag.dropFirst(2)
        }
        guard tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") else { return nil }
        var inner = tag.dropFirst().dropLast()
        if inner.hasSuffix("-gzip") { inner = inner.dropLast(5) }
        return inner
    }

    /// A dash and sixteen lowercase hex digits.
    private static func appendHex(_ value: UInt64, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "-"))
        for shift in stride(from: 60, through: 0, by: -4) {
            let digit = UInt8((value >> UInt64(shift)) & 0xF)
            bytes.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        }
    }
}
