import Dispatch
import ListModel

/// The records of a list that is the same for everyone as its searches read them: per source
/// collection, each record's id and the keys of its filter fields, and its searchable text
/// folded once (``ListQuery/searchableText(of:fields:)``) into one contiguous ``FoldedTexts``.
/// Made in the background after start and after a change of the list's definition (or by the
/// list's first search, if that comes first), kept current by every write (one fold per written
/// record), forgotten when the definition changes. A new search then scans the folded text with
/// one byte search and looks at the matching records only, instead of reading storage.
///
/// It holds no record's JSON: a search takes its rows from the list's own (see
/// ``ListSnapshot/restricted(to:)``), and the few searches that build instead read the records
/// that match from storage. Holding the JSON (and a small array of filter keys per record) cost
/// about 390 bytes per record, a third of the server's memory (`make bench-service`, 1,000,000
/// records: heap in use with the corpus made 991 MiB, now 638 MiB).
struct SearchCorpus: Sendable {
    /// One source collection's records, each in a slot (slots of deleted records are reused).
    struct Part: Sendable {
        /// Per slot: the record's id (nil: a free slot).
        var ids: [String?] = []
        /// Per slot, one entry per field of ``SearchCorpus/filterFields``: the ``ScalarKey`` text
        /// of the record's value, if any. Flat, so a record's keys cost no allocation of their own.
        var filterKeys: [String?] = []
        var slotOf: [String: Int] = [:]
        var free: [Int] = []
        /// Per slot: its folded searchable text.
        var texts = FoldedTexts()
        /// Entries of ``filterKeys`` per slot.
        let keysPerSlot: Int

        init(keysPerSlot: Int) { self.keysPerSlot = keysPerSlot }

        /// Makes room for `count` records (a corpus being made knows how many it reads).
        mutating func reserve(_ count: Int) {
            ids.reserveCapacity(count)
            filterKeys.reserveCapacity(count * keysPerSlot)
            slotOf.reserveCapacity(count)
        }

        mutating func set(id: String, folded: [UInt8], keys: [String?]) {
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
                filterKeys.append(contentsOf: repeatElement(nil, count: keysPerSlot))
                slotOf[id] = slot
            }
            filterKeys.replaceSubrange(slot * keysPerSlot..<(slot + 1) * keysPerSlot, with: keys)
            texts.set(slot, to: folded)
        }

        mutating func remove(id: String) {
            guard let slot = slotOf.removeValue(forKey: id) else { return }
            ids[slot] = nil
            for i in slot * keysPerSlot..<(slot + 1) * keysPerSlot { filterKeys[i] = nil }
            texts.set(slot, to: nil)
            free.append(slot)
        }
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
        for source in definition.sources { parts[source] = Part(keysPerSlot: filterFields.count) }
    }

    /// Makes room for `count` records of `collection`.
    mutating func reserve(_ count: Int, in collection: String) {
        parts[collection]?.reserve(count)
    }

    /// Records `record` (nil: deleted) as the one with `id` in `collection`, if the list reads it.
    mutating func write(collection: String, id: String, record: JSONValue?) {
        // `parts[collection] != nil` would copy the part out to compare it (a retain and release
        // of each of its arrays, per record written).
        guard parts.index(forKey: collection) != nil else { return }
        guard let record, case .object(let object) = record else {
            parts[collection]!.remove(id: id)
            return
        }
        let keys = filterFields.map { $0.lookup(in: object).flatMap(ScalarKey.init)?.text }
        parts[collection]!.set(id: id, folded: ListQuery.searchableText(of: object, fields: searchFields), keys: keys)
    }

    /// Takes a write as ``SearchCorpora`` records it.
    mutating func write(_ write: SearchCorpora.Write) {
        self.write(collection: write.collection, id: write.id, record: write.record?.value)
    }

    /// Records held, in all source collections.
    var recordCount: Int { parts.values.reduce(0) { $0 + $1.slotOf.count } }

    /// The ids of the records that `query` matches, per collection.
    func matching(_ query: ListQuery) -> [String: [String]] {
        let positions = Dictionary(filterFields.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var result: [String: [String]] = [:]
        for (collection, part) in parts {
            var kept: [String] = []
            let width = part.keysPerSlot
            func consider(_ slot: Int) {
                guard let id = part.ids[slot] else { return }
                // The text is already found: only the filters are left to check.
                if !query.filters.isEmpty {
                    guard query.filtersHold(keyOf: { positions[$0].flatMap { part.filterKeys[slot * width + $0] } }) else { return }
                }
                kept.append(id)
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

/// The search corpora of a store's lists, and the writes each corpus being made has missed: its
/// records are read under the writer's lock and parsed outside it, so the writes that come while
/// it parses are recorded here and applied to it before it is kept (none is lost, and a corpus
/// is never made again for a write). Changed only under the writer's lock, except that a making
/// may be abandoned at any time.
struct SearchCorpora: Sendable {
    /// A write as a corpus takes it (record nil: deleted).
    typealias Write = (collection: String, id: String, record: IncomingRecord?)

    private var held: [String: SearchCorpus] = [:]
    /// Per corpus being made (by number): its list, the fingerprint of the definition it is made
    /// for, the writes of it since its records were read, and a group left when its maker is done.
    private var making: [Int: (list: String, fingerprint: UInt64, missed: [Write], done: DispatchGroup)] = [:]
    private var lastNumber = 0
    /// Corpora begun since start (``start(_:fingerprint:)``), kept or not.
    private(set) var begun = 0

    /// The corpus held for `list`, if any.
    subscript(list: String) -> SearchCorpus? { held[list] }

    /// Per list with a corpus: its records (for the metrics).
    var recordCounts: [(list: String, records: Int)] {
        held.map { ($0.key, $0.value.recordCount) }.sorted { $0.list < $1.list }
    }

    /// Starts recording the writes of `list` for a corpus whose records were just read; returns
    /// the making's number, for ``finish(_:)``, and the group its maker leaves when done (entered here).
    mutating func start(_ list: String, fingerprint: UInt64) -> (number: Int, done: DispatchGroup) {
        lastNumber += 1
        begun += 1
        let done = DispatchGroup()
        done.enter()
        making[lastNumber] = (list, fingerprint, [], done)
        return (lastNumber, done)
    }

    /// The group of a corpus being made for `list` under the definition `fingerprint` names, if
    /// one is: a search that finds none held waits for it rather than make another.
    func beingMade(_ list: String, fingerprint: UInt64) -> DispatchGroup? {
        making.values.first { $0.list == list && $0.fingerprint == fingerprint }?.done
    }

    /// Stops recording for making `number`: the writes it missed, in order, or nil when the
    /// list's definition changed since (``forget(_:)``: the corpus is not to be kept).
    mutating func finish(_ number: Int) -> [Write]? {
        making.removeValue(forKey: number)?.missed
    }

    mutating func keep(_ corpus: SearchCorpus, as list: String) {
        held[list] = corpus
    }

    /// Whether `list` has a corpus or one being made (its writes are wanted).
    func follows(_ list: String) -> Bool {
        held[list] != nil || making.values.contains { $0.list == list }
    }

    /// Moves `list`'s corpus, and records `writes` for its corpora being made.
    mutating func write(list: String, _ writes: [Write]) {
        if held[list] != nil {
            for write in writes { held[list]!.write(write) }
        }
        for number in making.keys where making[number]!.list == list { making[number]!.missed += writes }
    }

    /// Forgets `list`'s corpus and abandons its makings (its definition changed).
    mutating func forget(_ list: String) {
        held[list] = nil
        making = making.filter { $0.value.list != list }
    }
}
