import HTTPServer
import ListModel

/// A list's definition as an HTTP resource with a validator, so two operators editing one list
/// cannot overwrite each other unseen. The entity tag names the definition in force:
/// `"runtime-7"`, revision 7 of the run-time definition (revisions are never reused, so the
/// revision alone tells), or `"config-<16 hex digits>"`, the config file's definition by its
/// fingerprint (its revision is always 0, so only the fingerprint tells an edited config file,
/// re-read or after a restart, from the one before). `GET` answers `304` to a matching
/// `If-None-Match`; `PUT` and `DELETE` honour `If-Match` / `If-None-Match`
/// (`412 precondition-failed`), checked in the change's commit.
enum DefinitionConditions {
    /// The entity tag of the run-time definition at `revision`.
    static func tag(revision: Int64) -> String { "\"runtime-\(revision)\"" }

    /// The entity tag of the config file's definition with `fingerprint` (as served: in its
    /// first language).
    static func tag(config fingerprint: UInt64) -> String {
        let hex = String(fingerprint, radix: 16)
        return "\"config-\(String(repeating: "0", count: 16 - hex.count))\(hex)\""
    }

    /// The condition the request's `If-Match` / `If-None-Match` put on a change of the
    /// definition; nil when it sends neither. Both must hold when both are sent (RFC 9110
    /// §13.2.2). Comparison is strong for `If-Match` (a weak tag never matches, §13.1.1), weak
    /// for `If-None-Match`; a tag that is not one of ours names no definition; the `-gzip`
    /// suffix of a compressed answer's tag names the same one.
    static func condition(_ request: Request) -> DefinitionCondition? {
        let ifMatch = request.headers.list("If-Match").map { match($0, weakMatches: false) }
        let ifNoneMatch = request.headers.list("If-None-Match").map { match($0, weakMatches: true) }
        guard ifMatch != nil || ifNoneMatch != nil else { return nil }
        return DefinitionCondition(ifMatch: ifMatch, ifNoneMatch: ifNoneMatch)
    }

    /// A header's `*` or tags. `*` among tags (not a valid field value) is taken as `*`, as for
    /// records: the stricter reading for `If-None-Match`.
    static func match(_ header: String, weakMatches: Bool) -> DefinitionCondition.Match {
        let items = header.split(separator: ",").map { Substring($0.trimmingSpaces) }
        if items.contains("*") { return .any }
        return .tags(Set(items.compactMap { tag(from: $0, weakMatches: weakMatches) }))
    }

    /// The definition an entity tag names, byte for byte as ``tag(revision:)`` and ``tag(config:)`` write it.
    private static func tag(from item: Substring, weakMatches: Bool) -> DefinitionCondition.Tag? {
        guard let inner = EntityTag.opaque(item, weakMatches: weakMatches) else { return nil }
        if inner.hasPrefix("runtime-") {
            let digits = inner.dropFirst(8)
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), !digits.hasPrefix("0"),
                  let revision = Int64(digits) else { return nil }
            return .runtime(revision: revision)
        }
        if inner.hasPrefix("config-") {
            let hex = inner.dropFirst(7)
            guard hex.utf8.count == 16, hex.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }),
                  let fingerprint = UInt64(hex, radix: 16) else { return nil }
            return .config(fingerprint: fingerprint)
        }
        return nil
    }

    /// `412 precondition-failed`: the definition in force is not the one the request expected.
    static func failed(_ name: String) -> HTTPError {
        HTTPError(.preconditionFailed, "precondition-failed", title: "Precondition failed",
                  detail: "The definition of list '\(HTTPError.echo(name))' is not in the state the request expected (it changed).")
    }
}
