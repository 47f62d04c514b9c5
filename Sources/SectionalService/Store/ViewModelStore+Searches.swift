import Dispatch
import HTTPServer
import ListModel
import ListStore

/// Search and filter results: a query's result (of a list, or of one user's partition, in one
/// of its languages) is a materialization of its own — a list built from the records that
/// match — built on first read, kept current by every write while in memory, and evicted
/// least-recently-read under the same `maxResidentRows` budget as partitions. It moves with the
/// list or partition it is taken from: same versions, its own `changes` history, no events of
/// its own (the list's stream announces them). A result of a list that is the same for everyone
/// takes a new state only from a write that changes its rows; between, it is served at the
/// list's version (``ListState/serving(_:)``).
extension ViewModelStore {
    /// The result of `query` on `base` (a list, or a user's partition, in one of its languages):
    /// from memory, or built from storage (as a partition is; see ``partition(_:of:)``) at the
    /// version `base` has now.
    ///
    /// `items` are the request's query parameters as sent: a result found in memory is
    /// remembered with them for this thread (see ``recentSearch(of:items:)``).
    ///
    /// Nil when the list's definition changed after `base` was read: the request is to be read
    /// again from the start, under the new definition, which may refuse it (the caller no longer
    /// allowed, a field it no longer searches or filters). Answered here, it was the caller's
    /// access checked against one definition and the rows of another: a list made private, or
    /// per-user, answered an anonymous search with every user's records.
    func searched(_ base: ListState, query: ListQuery, items: [(name: String, value: String)] = []) throws(StoreError) -> ListState? {
        let key = MaterializationKey(list: base.name, partition: base.partition, language: base.language, query: query)
        if let (state, recency, generation) = cache.readEntry(key) {
            guard state.servedFingerprint == base.servedFingerprint else { return nil }
            let recent = RecentSearch.current
            recent.generation = generation
            recent.list = base.name
            recent.partition = base.partition?.text
            recent.language = base.language
            recent.items = items.filter { RecentSearch.isSearchParameter($0.name) }
            recent.state = state
            recent.recency = recency
            return state
        }
        var refused = false
        return try cache.building { () throws(StoreError) -> ListState? in
            while true {
                let (snapshot, version, epoch, definition): (ListSnapshot, Int64, Int64?, ListDefinition)
                if base.partition == nil {
                    guard let read = try fromCorpus(base, query: query) else { return nil }
                    (snapshot, version, epoch, definition) = read
                } else {
                    guard let (records, read, readEpoch, current) = try fromStorage(base, query: query) else { return nil }
                    (snapshot, version, epoch, definition) = (ListSnapshot.build(definition: served(current, base), records: records),
                                                              read, readEpoch, current)
                }
                let state = ListState(snapshot: snapshot.asSearchResult(), version: version, partition: base.partition,
                                      language: base.language, query: query, served: definition.fingerprint)
                if let installed = cache.install(key, state: state, epoch: epoch) { return installed }
                // A write moved the list while the result was made: it is still the result at
                // `version`, no older than what this request read, and it answers the request the
                // second time (made again and again instead, a search of a list written more often
                // than a search takes never answered). A later read makes it again, to keep.
                if refused { return state }
                refused = true
            }
        }
    }

    /// The result this thread found last for the same search parameters (`items`, the request's
    /// query parameters as sent) on `base`, when nothing in memory changed since (see
    /// ``RecentSearch``): what ``searched(_:query:items:)`` would find, without making the query
    /// or its key. Nil otherwise, and for a request with no search parameters.
    func recentSearch(of base: ListState, items: [(name: String, value: String)]) -> ListState? {
        guard !items.isEmpty else { return nil }
        let recent = RecentSearch.current
        guard recent.isOf(list: base.name, partition: base.partition?.text, language: base.language),
              !recent.items.isEmpty, recent.sameParameters(items), let recency = recent.recency,
              let table = cache.table(ifGeneration: recent.generation) else { return nil }
        // The state was read from this table, which holds it (or holds the list state that keeps
        // the state it is served by: `ListState.serving`): alive while the table is held.
        guard let state = withExtendedLifetime(table, { recent.state }),
              state.servedFingerprint == base.servedFingerprint else { return nil }
        cache.touch(recency)
        return state
    }

    /// `definition` in the language of `base`.
    private func served(_ definition: ListDefinition, _ base: ListState) -> ListDefinition {
        base.language.map { definition.localized($0, formats: Localization.formats(for: $0)) } ?? definition
    }

    /// The definition of `base`'s list in force (under the writer's lock), nil when it is not the
    /// one `base` was served by (changed since `base` was read: nothing is to be read or built
    /// for it here). A removed list's last readers keep the definition they had.
    private func definitionInForce(of base: ListState) -> ListDefinition? {
        guard let found = catalog.withLock({ $0.definition(base.name) }) else { return base.definition }
        return found.fingerprint == base.servedFingerprint ? found : nil
    }

    /// The records of a user's partition that match, read from storage, at the partition's
    /// version now; with the list's definition and epoch. Nil when the definition changed.
    private func fromStorage(_ base: ListState, query: ListQuery) throws(StoreError)
        -> ([String: [JSONValue]], Int64, Int64?, ListDefinition)? {
        let read = try writer.withLock {
            _ throws(StoreError) -> ([String: [StoredRecord]], Int64, Int64?, ListDefinition)? in
            let epoch = cache.epoch(of: base.name)
            guard let definition = definitionInForce(of: base) else { return nil }
            // No write of this process falls between this version and the records read; the
            // partition's version is read with them, as a build of it reads it (on a store other
            // instances share, it may be ahead of what this one applied, like the records).
            let version = cache.currentVersion(of: base.key) ?? base.version
            guard let partition = base.partition, let scope = definition.scope else { return ([:], version, epoch, definition) }
            let (stored, readVersion) = try store.readConsistently { () throws(StoreError) in
                try readPartition(partition, scope: scope, sources: definition.sources)
            }
            return (stored, max(version, readVersion ?? 0), epoch, definition)
        }
        guard let (stored, version, epoch, definition) = read else { return nil }
        var records: [String: [JSONValue]] = [:]
        for (source, list) in stored {
            var parsed = try Self.parseAll(list, collection: source, log: log)
            if let partition = base.partition, let scope = definition.scope {
                parsed = parsed.filter { Self.owner(of: $0, scope: scope) == partition }
            }
            records[source] = parsed.filter { query.matches($0) }
        }
        return (records, version, epoch, definition)
    }

    /// The result of `query` on a list that is the same for everyone (in one of its languages),
    /// from the list's ``SearchCorpus`` at the list's version now; with that version, the
    /// list's epoch and its definition.
    ///
    /// The corpus is made in the background after start (``prepareCorporaLater(_:)``); a search
    /// that comes before it is ready waits for one being made for the list (its records read
    /// already), and otherwise makes one itself (``prepareCorpus(of:)``) rather than wait for the
    /// background, which may be busy with another list.
    ///
    /// The corpus says which records match; their rows are taken from the list's snapshot at the
    /// same version (``ListSnapshot/restricted(to:)``: no record parsed, no row rendered). Only a
    /// list that drops duplicate rows, or a language not in memory, reads the matching records
    /// from storage and builds. Nil when the definition changed.
    private func fromCorpus(_ base: ListState, query: ListQuery) throws(StoreError) -> (ListSnapshot, Int64, Int64?, ListDefinition)? {
        while true {
            let read = writer.withLock { _ -> (SearchCorpus?, ListState?, Int64, Int64?, ListDefinition)? in
                let epoch = cache.epoch(of: base.name)
                guard let definition = definitionInForce(of: base) else { return nil }
                let version = versionNow(of: base)
                guard let corpus = corpora.withLock({ $0[base.name] }), corpus.fingerprint == definition.fingerprint else {
                    return (nil, nil, version, epoch, definition)
                }
                // The rows of the same version (the writer moves the corpus and the lists together).
                let rows = cache.peek(base.key).flatMap { $0.version == version ? $0 : nil }
                return (corpus, rows, version, epoch, definition)
            }
            guard let (found, rows, version, epoch, definition) = read else { return nil }
            guard let found else {
                // Not kept only when the definition changed meanwhile: then again, for the new one.
                try prepareCorpus(of: definition)
                continue
            }
            let matched = found.matching(query)
            if let rows, let snapshot = rows.snapshot.restricted(to: matched) {
                return (snapshot, version, epoch, definition)
            }
            // Built from the matching records, read from storage at the same version (else again).
            guard let stored = try matchingRecords(matched, of: base, at: version) else { continue }
            var records: [String: [JSONValue]] = [:]
            for (collection, list) in stored {
                records[collection] = try Self.parseAll(list, collection: collection, log: log)
            }
            return (ListSnapshot.build(definition: served(definition, base), records: records), version, epoch, definition)
        }
    }

    /// The version of `base`'s list now (a language moves with its list: the same version).
    /// Under the writer's lock.
    private func versionNow(of base: ListState) -> Int64 {
        cache.currentVersion(of: base.key) ?? cache.currentVersion(of: MaterializationKey(list: base.name, partition: nil)) ?? base.version
    }

    /// The records named in `ids` (per collection), read from storage under the writer's lock
    /// while the list of `base` is still at `version` (so no write falls between); nil when it
    /// moved on. A read per id on SQLite (a few microseconds each), one query on PostgreSQL.
    private func matchingRecords(_ ids: [String: [String]], of base: ListState,
                                 at version: Int64) throws(StoreError) -> [String: [StoredRecord]]? {
        try writer.withLock { _ throws(StoreError) -> [String: [StoredRecord]]? in
            guard versionNow(of: base) == version else { return nil }
            var records: [String: [StoredRecord]] = [:]
            for (collection, list) in ids { records[collection] = try store.records(in: collection, ids: list) }
            return records
        }
    }

    /// Makes the ``SearchCorpus`` of `definition` (a list that is the same for everyone, with
    /// `search` or `filters`) from storage and keeps it, unless one is held for it already.
    /// Returns whether a corpus for `definition` is held on return: false when the list's
    /// definition changed while it was made (it is dropped).
    ///
    /// Cost: every record of the list's sources read under the writer's lock (writes wait), then
    /// parsed (a page at a time, on every core) and folded outside it (100,000 people: about half
    /// a second), then the writes that came meanwhile applied under the lock (``SearchCorpora``).
    /// While one is being made for the same definition, waits for it instead (one copy of the
    /// records at a time, however many searches come first). Logs one info line when a corpus is
    /// kept (list, records, milliseconds). Throws what the store throws.
    @discardableResult
    func prepareCorpus(of definition: ListDefinition) throws(StoreError) -> Bool {
        let started = ContinuousClock.now
        let name = definition.name
        var read = try writer.withLock { _ throws(StoreError) -> CorpusRead in
            // A definition no longer in force is not made (a removed list's, for its last searches, is).
            if let current = catalog.withLock({ $0.definition(name) }), current.fingerprint != definition.fingerprint { return .stale }
            // Only a list the same for everyone that takes a query has one (a search that raced a
            // change of the definition is not one).
            guard Self.hasCorpus(definition) else { return .stale }
            guard corpora.withLock({ $0[name] })?.fingerprint != definition.fingerprint else { return .held }
            // One being made already (the background's, or another search's): wait for it, not
            // read every record again and hold a second copy of them.
            if let making = corpora.withLock({ $0.beingMade(name, fingerprint: definition.fingerprint) }) { return .beingMade(making) }
            var stored: [String: [StoredRecord]] = [:]
            for source in definition.sources { stored[source] = try store.allRecords(in: source) }
            let (number, done) = corpora.withLock { $0.start(name, fingerprint: definition.fingerprint) }
            return .read(number: number, done: done, stored: stored)
        }
        let number: Int, done: DispatchGroup
        var stored: [String: [StoredRecord]]
        switch read {
        case .held: return true
        case .stale: return false
        case .beingMade(let making):
            making.wait()
            return try prepareCorpus(of: definition)
        case .read(let made, let group, let records): (number, done, stored) = (made, group, records)
        }
        // The records are `stored`'s alone, emptied once parsed, so their memory is given back
        // below (held by `read` to the end, they stayed resident: 1,031 bytes a row against 723
        // in `make bench-service`'s 1,000,000 rows once the corpus was made).
        read = .held
        defer { done.leave() }
        var corpus = SearchCorpus(definition: definition)
        do throws(StoreError) {
            for (source, list) in stored {
                corpus.reserve(list.count, in: source)
                // A page at a time, as start-up reads (``readAll(in:from:log:_:)``): a page's parsed
                // records are dropped before the next page is parsed, instead of all of them held
                // until the corpus is made.
                for start in stride(from: 0, to: list.count, by: Self.readPageSize) {
                    let page = Array(list[start..<min(start + Self.readPageSize, list.count)])
                    for record in try Self.parseAll(page, collection: source, log: log) {
                        guard case .object(let object) = record, case .string(let id)? = object["id"] else { continue }
                        corpus.write(collection: source, id: id, record: record)
                    }
                }
            }
        } catch {
            corpora.withLock { _ = $0.finish(number) }
            throw error
        }
        stored = [:]
        // Nil: dropped (the definition changed); false: another making's corpus was kept first.
        let kept = writer.withLock { _ in
            corpora.withLock { corpora -> Bool? in
                guard let missed = corpora.finish(number) else { return nil }
                // Kept unless one for the same definition is held already: the first kept stays.
                guard corpora[name]?.fingerprint != definition.fingerprint else { return false }
                for write in missed { corpus.write(write) }
                corpora.keep(corpus, as: name)
                return true
            }
        }
        // The records read and parsed for it are freed: give their memory back.
        FreedMemory.release()
        if kept == true {
            log.info("search corpus made", ["list": .text(name), "records": .number(Double(corpus.recordCount)),
                                            "milliseconds": .number(((ContinuousClock.now - started).seconds * 1000).rounded())])
        }
        return kept != nil
    }

    /// Whether lists of `definition` keep a ``SearchCorpus``: the same for everyone, and taking a
    /// query (`search` or `filters`).
    static func hasCorpus(_ definition: ListDefinition) -> Bool {
        definition.scope == nil && (definition.search != nil || !definition.filters.isEmpty)
    }

    /// What ``prepareCorpus(of:)`` found: a corpus held for the definition, a definition no
    /// longer in force, or the records read (and the making's number).
    private enum CorpusRead {
        case held, stale
        /// Another caller is making it: wait on the group, then look again.
        case beingMade(DispatchGroup)
        case read(number: Int, done: DispatchGroup, stored: [String: [StoredRecord]])
    }

    /// Makes, in the background, the ``SearchCorpus`` of each list named in `names` (nil: every
    /// list) that is the same for everyone and takes a query (has `search` or `filters`: either
    /// reads the corpus), one list at a time on a utility
    /// queue, with the definition in force when its turn comes: after start and after a
    /// definition change, so that the first search does not read storage. Returns at once; a
    /// corpus is ready when ``searchCorpusRecords`` names its list. A store failure is logged and
    /// leaves the corpus to the list's first search.
    func prepareCorporaLater(_ names: [String]? = nil) {
        corpusQueue.async { [weak self] in
            ThreadPinning.freeCallingThread()
            guard let self else { return }
            for definition in definitions where Self.hasCorpus(definition) && names.map({ $0.contains(definition.name) }) ?? true {
                do throws(StoreError) {
                    try prepareCorpus(of: definition)
                } catch {
                    log.warn("search corpus not made in the background; the list's first search makes it",
                             ["list": .text(definition.name), "error": .text("\(error)")])
                }
            }
        }
    }

    /// Per list with a search corpus: the records in it (a list is missing until its corpus is made).
    var searchCorpusRecords: [(list: String, records: Int)] { corpora.withLock { $0.recordCounts } }

    /// Moves the ``SearchCorpus`` of a list that is the same for everyone, if it has one or one
    /// is being made, with a group of writes.
    func advanceCorpus(of definition: ListDefinition, by writes: [AppliedWrite]) {
        corpora.withLock { corpora in
            guard corpora.follows(definition.name) else { return }
            corpora.write(list: definition.name, writes.filter { definition.reads(collection: $0.collection) }.map { ($0.collection, $0.id, $0.record) })
        }
    }

    /// Moves every resident search result of `base` (a list or partition, in one language) with
    /// a group of writes: a record written that matches is written into the result, one that
    /// does not is deleted from it (it may have matched before). Each written record's
    /// searchable text is folded once, whatever the number of searches.
    ///
    /// A result of a list that is the same for everyone that no write enters, leaves or is in
    /// keeps its state (the publication knows the writer looked at it: see
    /// ``MaterializationCache/queries(of:)``): it is served at the list's version by
    /// ``ListState/serving(_:)``, and the writer spends on it only the test of each record
    /// (callgrind, a PUT into 100,000 rows with 121 resident searches: 3.1 million instructions
    /// when each search took a state per write, 0.35 million with no search). Results of
    /// partitions and other languages still take every version.
    func advanceQueries(of base: MaterializationKey, by writes: [AppliedWrite], sequence: Int64,
                        next: inout [MaterializationKey: ListState]) {
        let resident = cache.queries(of: base)
        guard !resident.isEmpty else { return }
        let servedAtListVersion = base.partition == nil && base.language == nil
        // A result is in `next` only when an earlier group of the same commit moved it.
        let movedBefore = next.keys.contains { $0.query != nil }
        // Each write's searchable text, for the search fields it was made of: the results of a
        // list share the list's fields (a result whose request read the list under another
        // definition is not kept: ``searched(_:query:items:)``); should one differ, the text is
        // made again for it, not taken from another's fields (that once dropped records that
        // matched: `SearchRaceTests`).
        var folded = [[UInt8]?](repeating: nil, count: writes.count)
        var foldedFields: [FieldPath] = []
        for current in resident {
            let state = movedBefore ? next[current.key] ?? current : current
            guard let query = state.query, state.version < sequence else { continue }
            let fields = query.searchFields
            if fields != foldedFields {
                folded = [[UInt8]?](repeating: nil, count: writes.count)
                foldedFields = fields
            }
            func matches(_ index: Int) -> Bool {
                writes[index].record.map { record in
                    query.matches(record.value) { object in
                        if let text = folded[index] { return text }
                        let text = ListQuery.searchableText(of: object, fields: fields)
                        folded[index] = text
                        return text
                    }
                } ?? false
            }
            // Most writes neither enter, leave nor touch a result: found without building anything.
            let touched = writes.indices.contains { matches($0) || state.snapshot.contains(rowID: writes[$0].id) }
            if !touched && servedAtListVersion { continue }
            // A record that does not match leaves the result; one that is not in it is skipped.
            // Whether it is in it follows the group's own writes (one may enter it, a later one
            // of the same id leave it).
            var entered: [String: Bool] = [:]
            func isIn(_ id: String) -> Bool { entered[id] ?? state.snapshot.contains(rowID: id) }
            let filtered = !touched ? [] : writes.indices.compactMap { index -> AppliedWrite? in
                let write = writes[index]
                if matches(index) {
                    entered[write.id] = true
                    return write
                }
                guard isIn(write.id) else { return nil }
                entered[write.id] = false
                guard write.record != nil else { return write }
                return write.asDelete
            }
            let key = state.key
            next[key] = state.next(apply(filtered, to: state, key: key, sequence: sequence), version: sequence)
        }
    }
}
