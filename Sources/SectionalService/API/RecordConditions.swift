import HTTPServer
import ListModel
import ListStore

/// Records as HTTP resources with validators: a record's entity tag is its version (the number
/// of the commit that last wrote it), `"17"`; `GET` answers `304` to a matching
/// `If-None-Match`, and writes honour `If-Match` / `If-None-Match` (`412 precondition-failed`).
enum RecordConditions {
    /// The entity tag of a record at `version`.
    static func tag(_ version: Int64) -> String { "\"\(version)\"" }

    /// The conditions the request's `If-Match` / `If-None-Match` put on a write of the record;
    /// both must hold when both are sent (RFC 9110 §13.2.2: `If-None-Match` is evaluated after an
    /// `If-Match` that holds, and on a write its failure is a `412` too). Comparison is strong for
    /// `If-Match` (RFC 9110 §13.1.1): a weak tag never matches it; a tag that is not one of ours
    /// names no version. The `-gzip` suffix of a compressed answer's tag is the same version.
    static func conditions(_ request: Request, collection: String, id: String) -> [WriteCondition] {
        var conditions: [WriteCondition] = []
        if let header = request.headers.list("If-Match") {
            let expectation = header.trimmingSpaces == "*" ? WriteCondition.Expectation.exists : .version(versions(header, weakMatches: false))
            conditions.append(WriteCondition(collection: collection, id: id, expectation: expectation))
        }
        if let header = request.headers.list("If-None-Match") {
            // `*` among tags (not a valid field value) is taken as `*`, the stricter reading: a
            // create-only write must not overwrite because a tag was sent next to it.
            let any = header.split(separator: ",").contains { $0.trimmingSpaces == "*" }
            let expectation = any ? WriteCondition.Expectation.absent : .notVersion(versions(header, weakMatches: true))
            conditions.append(WriteCondition(collection: collection, id: id, expectation: expectation))
        }
        return conditions
    }

    /// The versions an entity-tag list names.
    static func versions(_ header: String, weakMatches: Bool) -> [Int64] {
        header.split(separator: ",").compactMap { item -> Int64? in
            guard let inner = EntityTag.opaque(Substring(item.trimmingSpaces), weakMatches: weakMatches) else { return nil }
            // Byte for byte as the tag was sent ("06445" is not the tag "6445").
            guard !inner.isEmpty, inner.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), inner == "0" || !inner.hasPrefix("0") else { return nil }
            return Int64(inner)
        }
    }

    /// `412 precondition-failed`, naming the records whose expectation did not hold.
    static func failed(_ ids: [String]) -> HTTPError {
        let list = ids.map { JSONWriter.quoted($0) }.joined(separator: ",")
        return HTTPError(.preconditionFailed, "precondition-failed", title: "Precondition failed",
                         detail: ids.count == 1 ? "Record '\(HTTPError.echo(ids[0]))' is not in the state the request expected (it changed)."
                                                : "\(ids.count) records are not in the state the batch expected; nothing was written.",
                         extensions: [("ids", "[\(list)]")])
    }
}
