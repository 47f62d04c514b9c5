import ListModel

/// A search and filters applied to a list at request time (`?q=TEXT&filter.FIELD=VALUE`),
/// normalized so that queries selecting the same rows by the same words are one key: the text
/// folded (``SearchFolding``), the filters sorted.
///
/// A record matches when every filter holds — its field equals the value: a string field the
/// text exactly, a number field the number it spells, a boolean field `true` / `false` — and,
/// with a text, when one of the list's `search` fields (strings, numbers, booleans) contains it.
struct ListQuery: Hashable, Sendable {
    /// One `filter.FIELD=VALUE`.
    struct Filter: Hashable, Sendable, Comparable {
        let field: FieldPath
        let value: String

        /// The ``ScalarKey`` texts of the record values equal to ``value`` (by code points).
        var keys: Set<CodePointKey> {
            var keys: Set<CodePointKey> = [CodePointKey("s:" + value)]
            if value == "true" || value == "false" { keys.insert(CodePointKey("b:" + value)) }
            if let number = try? JSONParser.parse(Array(value.utf8)), number.isNumber, let key = ScalarKey(number) {
                keys.insert(CodePointKey(key.text))
            }
            return keys
        }

        static func < (a: Filter, b: Filter) -> Bool {
            (a.field.description, a.value) < (b.field.description, b.value)
        }

        /// By code points, as records' values match it: two canonically equivalent but
        /// different values are two filters with two results.
        static func == (a: Filter, b: Filter) -> Bool { a.field == b.field && CodePointKey(a.value) == CodePointKey(b.value) }
        func hash(into hasher: inout Hasher) {
            hasher.combine(field)
            hasher.combine(CodePointKey(value))
        }
    }

    /// The folded search text; nil for none (no `q`, or one that folds to nothing).
    var text: [UInt8]? { parts.text }
    /// The filters, sorted.
    var filters: [Filter] { parts.filters }
    /// The fields the text is looked for in (the list's `search.fields`).
    var searchFields: [FieldPath] { parts.searchFields }
    /// Per filter, its ``Filter/keys`` (computed once).
    private var matchKeys: [Set<CodePointKey>] { parts.matchKeys }

    /// The query's parts behind one reference, with their hash: a query is copied and hashed
    /// with every key of the result it names, and a write moves every resident search of its
    /// list, looking each up a few times (measured: with 120 resident searches, hashing and
    /// copying their keys took half of a write's instructions).
    private final class Parts: Sendable {
        let text: [UInt8]?
        let filters: [Filter]
        let searchFields: [FieldPath]
        let matchKeys: [Set<CodePointKey>]
        /// Of the text and the filters (the search fields are the list's, the same for its every
        /// query; the match keys follow from the filters).
        let hash: Int

        init(text: [UInt8]?, filters: [Filter], searchFields: [FieldPath]) {
            self.text = text
            self.filters = filters
            self.searchFields = searchFields
            matchKeys = filters.map(\.keys)
            var hasher = Hasher()
            // The text's bytes at once (an array of bytes hashes byte by byte).
            if let text {
                hasher.combine(text.count)
                text.withUnsafeBytes { hasher.combine(bytes: $0) }
            } else {
                hasher.combine(-1)
            }
            hasher.combine(filters)
            hash = hasher.finalize()
        }
    }

    private let parts: Parts

    init(text: String?, filters: [Filter], searchFields: [FieldPath]) {
        let folded = text.map(SearchFolding.fold)
        parts = Parts(text: folded?.isEmpty == false ? folded : nil, filters: filters.sorted(), searchFields: searchFields)
    }

    static func == (a: ListQuery, b: ListQuery) -> Bool {
        a.parts === b.parts
            || (a.parts.hash == b.parts.hash && a.text == b.text && a.filters == b.filters && a.searchFields == b.searchFields)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(parts.hash) }

    /// The canonical text of the query: what page tokens and entity tags are bound to.
    var canonical: String {
        var parts: [String] = []
        if let text { parts.append("q=" + String(decoding: text, as: UTF8.self)) }
        for filter in filters { parts.append("filter.\(filter.field)=\(filter.value)") }
        return parts.joined(separator: "\u{1F}")
    }

    /// 64 bits of FNV-1a over ``canonical``: the same in every process.
    var fingerprint: UInt64 {
        var hash = FNV1a()
        hash.combine(canonical)
        return hash.value
    }

    /// Whether `record` is in the result. `folded` gives the record's searchable text (see
    /// ``searchableText(of:fields:)``), asked for only when the filters hold and there is a text.
    func matches(_ record: JSONValue, folded: (JSONObject) -> [UInt8]) -> Bool {
        guard case .object(let object) = record else { return false }
        return matches(keyOf: { $0.lookup(in: object).flatMap(ScalarKey.init)?.text }, folded: { folded(object) })
    }

    /// Whether a record is in the result, given the ``ScalarKey`` text of its value at a filter
    /// field (nil: none) and its searchable text (asked for only when the filters hold).
    func matches(keyOf: (FieldPath) -> String?, folded: () -> [UInt8]) -> Bool {
        guard filtersHold(keyOf: keyOf) else { return false }
        guard let text else { return true }
        return Self.contains(folded(), text)
    }

    /// Whether every filter holds, given the ``ScalarKey`` text of a record's value at a filter
    /// field (nil: none).
    func filtersHold(keyOf: (FieldPath) -> String?) -> Bool {
        for (filter, keys) in zip(filters, matchKeys) {
            guard let key = keyOf(filter.field), keys.contains(CodePointKey(key)) else { return false }
        }
        return true
    }

    /// Whether `needle` (not empty) occurs in `haystack`.
    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBufferPointer { h in
            needle.withUnsafeBufferPointer { n in
                let first = n[0], last = h.count - n.count
                var i = 0
                while i <= last {
                    if h[i] == first {
                        var k = 1
                        while k < n.count, h[i + k] == n[k] { k += 1 }
                        if k == n.count { return true }
                    }
                    i += 1
                }
                return false
            }
        }
    }

    /// Whether `record` is in the result (folding its searchable text).
    func matches(_ record: JSONValue) -> Bool {
        matches(record) { Self.searchableText(of: $0, fields: searchFields) }
    }

    /// A record's `fields` folded, one after another (separated by U+001F, which folding turns
    /// into a space in a field's text and in a query, so no match spans two fields), for
    /// ``matches(_:folded:)``.
    static func searchableText(of record: JSONObject, fields: [FieldPath]) -> [UInt8] {
        var out: [UInt8] = []
        for field in fields {
            guard let value = field.lookup(in: record) else { continue }
            if !out.isEmpty { out.append(SearchFolding.fieldSeparator) }
            switch value {
            case .string(let string): SearchFolding.fold(string, into: &out)
            case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
            case .int(let number): out.append(contentsOf: String(number).utf8)
            case .double, .number:
                // Folded as text is (the query is): `1E+2` as written is found by `1e+2`.
                var writer = JSONWriter(capacity: 32)
                writer.value(value)
                out.append(contentsOf: writer.bytes.lazy.map { $0 == UInt8(ascii: "E") ? UInt8(ascii: "e") : $0 })
            default: continue
            }
        }
        return out
    }
}
