import JSONOutput
import ListModel

/// The records of a list that is the same for everyone as its searches read them: each record's
/// JSON, its searchable text folded once (``ListQuery/searchableText(of:fields:)``) and the keys
/// of its filter fields. Made on the list's first search, kept current by every write (one fold
/// per written record), forgotten when the definition changes. A new search then scans folded
/// text and keys and parses only the records that match, instead of reading storage.
struct SearchCorpus: Sendable {
    struct Entry: Sendable {
        let json: [UInt8]
        let folded: [UInt8]
        /// Per field of ``filterFields``: the ``ScalarKey`` text of the record's value, if any.
        let filterKeys: [String?]
    }

    /// The definition (first language) it was made for.
    let fingerprint: UInt64
    let searchFields: [FieldPath]
    let filterFields: [FieldPath]
    /// Per source collection: its records by id.
    private(set) var records: [String: [String: Entry]] = [:]

    init(definition: ListDefinition) {
        fingerprint = definition.fingerprint
        searchFields = definition.search ?? []
        filterFields = definition.filters
        for source in definition.sources { records[source] = [:] }
    }

    /// Records `record` (nil: deleted) as the one with `id` in `collection`, if the list reads it.
    mutating func write(collection: String, id: String, record: JSONValue?, json: [UInt8]? = nil) {
        guard records[collection] != nil else { return }
        guard let record, case .object(let object) = record else {
            records[collection]![id] = nil
            return
        }
        let bytes = json ?? {
            var writer = JSONWriter(capacity: 256)
            writer.value(record)
            return writer.bytes
        }()
        let keys = filterFields.map { $0.lookup(in: object).flatMap(ScalarKey.init)?.text }
        records[collection]![id] = Entry(json: bytes, folded: ListQuery.searchableText(of: object, fields: searchFields), filterKeys: keys)
    }

    /// The JSON of the records that `query` matches, per collection.
    func matching(_ query: ListQuery) -> [String: [[UInt8]]] {
        let positions = Dictionary(filterFields.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var result: [String: [[UInt8]]] = [:]
        for (collection, entries) in records {
            var kept: [[UInt8]] = []
            for entry in entries.values where query.matches(keyOf: { positions[$0].flatMap { entry.filterKeys[$0] } },
                                                            folded: { entry.folded }) {
                kept.append(entry.json)
            }
            result[collection] = kept
        }
        return result
    }
}
