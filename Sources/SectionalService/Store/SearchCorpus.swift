import JSONOutput
import ListModel

/// The records of a list that is the same for everyone as its searches read them: per source
/// collection, each record's id, JSON and the keys of its filter fields, and its searchable text
/// folded once (``ListQuery/searchableText(of:fields:)``) into one contiguous ``FoldedTexts``.
/// Made on the list's first search, kept current by every write (one fold per written record),
/// forgotten when the definition changes. A new search then scans the folded text with one byte
/// search and looks at the matching records only, instead of reading storage.
struct SearchCorpus: Sendable {
    /// One source collection's records, each in a slot (slots of deleted records are reused).
    struct Part: Sendable {
        /// Per slot: the record's id (nil: a free slot), JSON and filter keys.
        var ids: [String?] = []
        var json: [[UInt8]] = []
        /// Per field of ``filterFields``: the ``ScalarKey`` text of the record's value, if any.
        var filterKeys: [[String?]] = []
        var slotOf: [String: Int] = [:]
        var free: [Int] = []
        /// Per slot: its folded searchable text.
        var texts = FoldedTexts()

        mutating func set(id: String, json bytes: [UInt8], folded: [UInt8], keys: [String?]) {
            let slot: Int
            if let existing = slotOf[id] {
                slot = existing
            } else if let reused = free.popLast() {
                slot = reused
                ids[slot] = id
                slotOf[id] = slot
            } else {
                slot = ids.count
                ids.append(id)
                json.append([])
                filterKeys.append([])
                slotOf[id] = slot
            }
            json[slot] = bytes
            filterKeys[slot] = keys
            texts.set(slot, to: folded)
        }

        mutating func remove(id: String) {
            guard let slot = slotOf.removeValue(forKey: id) else { return }
            ids[slot] = nil
            json[slot] = []
            filterKeys[slot] = []
            texts.set(slot, to: nil)
            free.append(slot)
        }
    }

    /// A record a query matches.
    struct Match {
        let id: String
        let json: [UInt8]
    }

    /// The definition (first language) it was made for.
    let fingerprint: UInt64
    let searchFields: [FieldPath]
    let filterFields: [FieldPath]
    /// Per source collection.
    private(set) var parts: [String: Part] = [:]

    init(definition: ListDefinition) {
        fingerprint = definition.fingerprint
        searchFields = definition.search ?? []
        filterFields = definition.filters
        for source in definition.sources { parts[source] = Part() }
    }

    /// Records `record` (nil: deleted) as the one with `id` in `collection`, if the list reads it.
    mutating func write(collection: String, id: String, record: JSONValue?, json: [UInt8]? = nil) {
        guard parts[collection] != nil else { return }
        guard let record, case .object(let object) = record else {
            parts[collection]!.remove(id: id)
            return
        }
        let bytes = json ?? {
            var writer = JSONWriter(capacity: 256)
            writer.value(record)
            return writer.bytes
        }()
        let keys = filterFields.map { $0.lookup(in: object).flatMap(ScalarKey.init)?.text }
        parts[collection]!.set(id: id, json: bytes, folded: ListQuery.searchableText(of: object, fields: searchFields), keys: keys)
    }

    /// The records that `query` matches, per collection.
    func matching(_ query: ListQuery) -> [String: [Match]] {
        let positions = Dictionary(filterFields.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var result: [String: [Match]] = [:]
        for (collection, part) in parts {
            var kept: [Match] = []
            func consider(_ slot: Int) {
                guard let id = part.ids[slot] else { return }
                // The text is already found: only the filters are left to check.
                if !query.filters.isEmpty {
                    let keys = part.filterKeys[slot]
                    guard query.filtersHold(keyOf: { positions[$0].flatMap { keys[$0] } }) else { return }
                }
                kept.append(Match(id: id, json: part.json[slot]))
            }
            if let text = query.text {
                part.texts.forEachOwner(containing: text, consider)
            } else {
                for slot in part.ids.indices { consider(slot) }
            }
            result[collection] = kept
        }
        return result
    }
}
