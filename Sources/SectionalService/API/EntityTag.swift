import HTTPServer

/// Entity tags for list reads: a function of the list version, the definition, the view and
/// (on a per-user list) the user's partition, so an edited config after a restart never answers
/// a stale `304`, and one user's tag never matches another's answer.
enum EntityTag {
    static func of(version: Int64, definition: UInt64, view: UInt64, partition: UInt64? = nil) -> String {
        guard let partition else { return "\"\(version)-\(hex(definition))-\(hex(view))\"" }
        return "\"\(version)-\(hex(definition))-\(hex(view))-\(hex(partition))\""
    }

    /// Answers `304 Not Modified` when `If-None-Match` names `tag` (or `*`); otherwise builds the
    /// answer and tags it.
    static func answer(_ request: Request, tag: String, _ build: () throws -> Response) rethrows -> Response {
        if let condition = request.headers["If-None-Match"], matches(condition, tag) {
            var response = Response(status: .notModified)
            response.headers.add("ETag", tag)
            return response
        }
        var response = try build()
        response.headers.add("ETag", tag)
        return response
    }

    /// RFC 9110 §13.1.2: a list of tags or `*`, compared weakly (a `W/` prefix is ignored).
    static func matches(_ condition: String, _ tag: String) -> Bool {
        condition.split(separator: ",").contains { candidate in
            var candidate = candidate.trimmingCharacters(in: .whitespaces)
            if candidate == "*" { return true }
            if candidate.hasPrefix("W/") { candidate.removeFirst(2) }
            if candidate.hasSuffix("-gzip\"") { candidate = String(candidate.dropLast(6)) + "\"" }
            return candidate == tag
        }
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
