import Dispatch
import HTTPServer
import ListModel
import ListStore
import Locking

/// The application's state: the current snapshot of every list — and of every per-user list's
/// partitions that are in memory — and the one path by which record writes reach the store and
/// then the lists.
///
/// Reads take the current ``ListState`` under a short lock and work on it without waiting for
/// writers. Writes are serialised: the store commits (durably), then every list that reads the
/// written collection gets its next snapshot, derived incrementally, with the commit's number
/// as its version. A per-user list is split into partitions (one per owner value), each built
/// on its first read (see `ViewModelStore+Partitions.swift`); a write moves only the
/// partitions whose records it changes.
public final class ViewModelStore: Sendable {
    /// Largest number of writes in one batch.
    public static let maxBatchOperations = 10_000

    /// The lists in force: the config's, with run-time definitions laid over them (changed
    /// only under ``writer``; see `ViewModelStore+Definitions.swift`).
    let catalog: Locked<ListCatalog>
    /// The definitions in force, in serving order.
    public var definitions: [ListDefinition] { catalog.withLock { $0.definitions } }
    public let store: RecordStore
    let cache: MaterializationCache
    /// Collections some per-user list reads (a write to them must say whose records it moved).
    var scopedCollections: Set<String> { catalog.withLock { $0.scopedCollections } }
    let writer = Locked<Void>(())
    /// The one thread that runs HTTP writes, so a server thread never waits on an fsync. Work
    /// goes to it through ``onWriter(_:)``.
    let writerQueue = DispatchQueue(label: "sectional.writer", qos: .userInitiated)
    /// Writes queued for the writer thread, committed together (group commit).
    private let pending = WriteQueue()
    let log: Log
    let onChange: @Sendable ([VersionEvent]) -> Void
    let metrics: Metrics
    private let duplicateLog = DuplicateLogLimiter()
    /// The last commit applied to the lists (read-your-writes: `minVersion`).
    let applied: AppliedVersion
    /// Per list that is the same for everyone and has `search` or `filters`: its records as queries read
    /// them, once made (see `ViewModelStore+Searches.swift`).
    let corpora = Locked(SearchCorpora())
    /// Where corpora are made in the background, one at a time (``prepareCorporaLater(_:)``).
    let corpusQueue = DispatchQueue(label: "sectional.search-corpus", qos: .utility)
    /// Told the ids of views other instances changed (see ``followViews(_:)``).
    let viewFollower = Locked<@Sendable ([String]) -> Void>({ _ in })
    /// The webhooks whose deliveries commits record (see `ViewModelStore+Webhooks.swift`).
    let webhooks: [WebhookSettings]

    /// Builds every list that is the same for everyone from the store's records; per-user lists
    /// are built per partition on first read, under `maxResidentRows` rows in all. `onChange`
    /// hears of every new version (on the writer's path: it must return at once). Every commit
    /// records in the store's outbox the deliveries of `webhooks` its writes make.
    public init(definitions: [ListDefinition], store: RecordStore, log: Log, metrics: Metrics = Metrics(),
                maxResidentRows: Int = 2_000_000, webhooks: [WebhookSettings] = [],
                onChange: @escaping @Sendable ([VersionEvent]) -> Void = { _ in }) throws(StoreError) {
        self.store = store
        self.webhooks = webhooks
        self.log = log
        self.metrics = metrics
        self.onChange = onChange
        cache = MaterializationCache(maxResidentRows: maxResidentRows)
        let served = try Self.noteServedDefinitions(definitions, in: store, webhooks: webhooks, log: log)
        // One committed state for the sequence, the versions, the run-time definitions and the
        // records, however many commits other instances make while this one loads: the change
        // log is followed from it.
        let (last, sequences, loaded, made) = try store.readConsistently {
            () throws(StoreError) -> (Int64, [String: Int64], ListCatalog, [String: [PageRows]]) in
            let last = try store.lastSequence()
            let sequences = try store.collectionSequences()
            var catalog = ListCatalog(config: definitions)
            for (list, errors) in catalog.load(try store.allDefinitions()) {
                log.error("skipping a stored run-time definition that does not decode", ["list": .text(list), "errors": .text(errors.description)])
            }
            for (list, change) in served { catalog.served(list, change) }
            // Each collection read once, its rows made for every list that reads it.
            let built = catalog.definitions.filter { $0.scope == nil }
            var made: [String: [PageRows]] = [:]
            for source in Set(built.flatMap(\.sources)).sorted() {
                let readers = built.filter { $0.reads(collection: source) }
                let pages = try Self.readAll(in: source, from: store, log: log) { records in
                    readers.map { PageRows(definition: $0, collection: source, records: records[...]) }
                }
                for (i, reader) in readers.enumerated() { made[reader.name, default: []] += pages.map { $0[i] } }
            }
            return (last, sequences, catalog, made)
        }
        applied = AppliedVersion(last)
        var catalog = loaded
        var pages = made
        for definition in catalog.definitions {
            let version = max(definition.sources.compactMap { sequences[$0] }.max() ?? 0, catalog.floors[definition.name] ?? 0)
            catalog.setFloor(definition.name, version)
            if let scope = definition.scope {
                for source in definition.sources {
                    try store.prepareField(scope.field, in: source)
                }
                continue
            }
            let snapshot = ListSnapshot.build(definition: definition, pages: pages.removeValue(forKey: definition.name) ?? [], parallelism: .cores)
            cache.pin(MaterializationKey(list: definition.name, partition: nil), state: ListState(snapshot: snapshot, version: version))
            metrics.recordDuplicates(list: definition.name, count: snapshot.duplicateRowCount)
        }
        self.catalog = Locked(catalog)
        for (key, state) in cache.pinnedStates() {
            logDuplicates(list: key.list, count: state.snapshot.duplicateRowCount)
        }
    }

    /// The definition of a list, or nil when there is no such list.
    public func definition(_ name: String) -> ListDefinition? {
        catalog.withLock { $0.definition(name) }
    }

    /// Who may read list `name` and its scope (nil for a list that is the same for everyone), or
    /// nil when there is no such list: what a read needs to find the caller's partition, without
    /// copying the whole definition (and retaining each of its members) on every warm read.
    func access(of name: String) -> (access: ListAccess, scope: ListScope?)? {
        catalog.withLock { catalog -> (access: ListAccess, scope: ListScope?)? in
            let definitions = catalog.definitions
            for index in definitions.indices where definitions[index].name == name {
                return (definitions[index].access, definitions[index].scope)
            }
            return nil
        }
    }

    /// The current state of a list that is the same for everyone, or nil when there is no such
    /// list (or it is per-user: see ``partition(_:of:)``).
    public func list(_ name: String) -> ListState? {
        cache.read(MaterializationKey(list: name, partition: nil))
    }

    /// The recent versions of a list or partition (for `changes`).
    func history(of state: ListState) -> ListHistory? {
        cache.history(state.key)
    }

    /// The current state of every list that is the same for everyone, in definition order.
    public func allLists() -> [ListState] {
        let pinned = cache.pinnedStates()
        return definitions.compactMap { pinned[MaterializationKey(list: $0.name, partition: nil)] }
    }

    /// Logs a list's count of dropped duplicate rows when it changed, at most once a minute.
    func logDuplicates(list: String, count: Int) {
        guard log.level <= .warn, duplicateLog.shouldLog(list: list, count: count) else { return }
        log.warn("duplicate rows dropped", ["list": .text(list), "count": .number(Double(count))])
    }

    /// Each list's `changes` history: versions kept and the written row ids they name (a
    /// per-user list's partitions summed).
    func historySizes() -> [(list: String, versions: Int, rows: Int)] {
        let sizes = cache.historySizes()
        return definitions.compactMap { definition in
            sizes[definition.name].map { (definition.name, $0.versions, $0.rows) }
        }
    }

    /// Writes waiting for the writer thread.
    var queuedWrites: Int { pending.writeCount }

    /// One write, parsed and checked by the caller.
    public enum Write: Sendable {
        case upsert(collection: String, record: IncomingRecord)
        case delete(collection: String, id: String)
        /// A merge patch of a stored record, merged when the commit runs (a missing record
        /// refuses its group, naming it in the conflicts).
        case patch(RecordPatch)
    }

    /// Commits `writes` on the writer thread; `completion` gets the outcome there. Writes that
    /// queue up while one commit runs are committed together by the next (one transaction and
    /// one fsync for all, each still its own version), so a server thread never waits on disk;
    /// when they come from several requests at once, the writer waits briefly for more (see
    /// ``WriteQueue``). When a condition does not hold, nothing of `writes` is written and the
    /// result names the records in ``CommitResult/conflicts``.
    public func commitLater(_ writes: [Write], conditions: [WriteCondition] = [],
                            completion: @escaping @Sendable (Result<CommitResult, StoreError>) -> Void) {
        if pending.append(WriteQueue.Item(writes: writes, conditions: conditions, completion: completion)) {
            onWriter { [self] in drainPending() }
        }
    }

    /// Runs `work` on the writer thread, free of any server thread's core: a request hands
    /// writes over, so libdispatch may have made the writer's thread from a pinned server
    /// thread (``ThreadPinning``), and the writer's parallel parts would inherit its one core.
    func onWriter(_ work: @escaping @Sendable () -> Void) {
        writerQueue.async {
            ThreadPinning.freeCallingThread()
            work()
        }
    }

    /// Commits the next batch of queued writes, then queues itself again behind whatever else
    /// waits for the writer thread, until it finds nothing queued (`lastCommit`: the previous
    /// batch's items, 0 for the first of a drain). One batch a turn, not a loop: a loop kept
    /// a definition change or a config reload (``onWriter(_:)`` work too) waiting for as long as
    /// writes kept coming.
    private func drainPending(afterCommitOf lastCommit: Int = 0) {
        pending.gather(afterCommitOf: lastCommit)
        let batch = pending.takeAll()
        guard !batch.isEmpty else { return }
        do {
            let (results, events) = try commit(groups: batch.map { ($0.writes, $0.conditions) })
            // Answer the writers first, then wake the event streams (their fan-out would
            // otherwise queue ahead of the answers on the server threads).
            for (item, result) in zip(batch, results) { item.completion(.success(result)) }
            if !events.isEmpty { onChange(events) }
        } catch {
            for item in batch { item.completion(.failure(error)) }
        }
        onWriter { [self] in drainPending(afterCommitOf: batch.count) }
    }

    /// Commits groups of writes in one transaction, each group its own version, then publishes
    /// every touched list or partition once, at its last version (the versions between are in
    /// its history). Returns what the store did and the new versions, for the caller to announce.
    private func commit(groups: [(writes: [Write], conditions: [WriteCondition])]) throws(StoreError) -> (results: [CommitResult], events: [VersionEvent]) {
        try writer.withLock { _ throws(StoreError) -> ([CommitResult], [VersionEvent]) in
            var conflicts: [Int: [String]] = [:]
            let started = ContinuousClock.now
            let outcomes: [CommitResult?]
            let accepted: [[Write]]
            var ahead: EditsAhead?
            defer { ahead?.finish() }
            if groups.allSatisfy({ $0.conditions.isEmpty && !$0.writes.contains(where: \.isPatch) }) {
                // The lists' edits are made while the store commits (used only if it succeeds).
                ahead = editAhead(groups)
                outcomes = try store.commit(groups: groups.map { Self.recordWrites($0.writes) }, previousIn: scopedCollections,
                                            deliveries: { groups, results in plannedDeliveries(groups, results) })
                accepted = groups.map(\.writes)
            } else {
                // Conditions are checked, and patches merged, by the store while no other
                // writer — of any instance — can commit, against the records as committed.
                var resolved: [[Write]?] = []
                outcomes = try store.commit(previousIn: scopedCollections,
                                            deliveries: { groups, results in plannedDeliveries(groups, results) }) {
                    lookup throws(StoreError) -> [[RecordWrite]?] in
                    conflicts = [:]
                    resolved = []
                    var written: [WriteCondition.Key: Bool] = [:]
                    var latest: [WriteCondition.Key: IncomingRecord?] = [:]
                    for (index, group) in groups.enumerated() {
                        var failed: [WriteCondition] = []
                        var named: Set<WriteCondition.Key> = []
                        for condition in group.conditions where !(try holds(condition, after: written, lookup: lookup)) {
                            // Each record named once (`If-Match` and `If-None-Match` are two conditions on one).
                            if named.insert(WriteCondition.Key(collection: condition.collection, id: condition.id)).inserted { failed.append(condition) }
                        }
                        guard failed.isEmpty else {
                            conflicts[index] = failed.map(\.id)
                            resolved.append(nil)
                            continue
                        }
                        switch try resolvePatches(group.writes, latest: &latest, lookup: lookup) {
                        case .failure(let missing):
                            conflicts[index] = missing.ids
                            resolved.append(nil)
                        case .success(let writes):
                            resolved.append(writes)
                            for write in group.writes { written[write.key] = write.isUpsert }
                        }
                    }
                    return resolved.map { $0.map(Self.recordWrites) }
                }
                accepted = resolved.compactMap { $0 }
            }
            let committed = outcomes.compactMap { $0 }
            metrics.recordStoreWrite(seconds: (ContinuousClock.now - started).seconds)
            var next: [MaterializationKey: ListState] = [:]
            var partitionVersions: [MaterializationKey: Int64] = [:]
            var remaining = committed.makeIterator()
            let results = groups.indices.map { index -> CommitResult in
                guard let ids = conflicts[index] else { return remaining.next()! }
                var refused = CommitResult(sequence: 0, existed: [], changedAnything: false)
                refused.conflicts = ids
                return refused
            }
            let changed = committed.filter(\.changedAnything)
            guard let first = changed.first?.sequence else { return (results, []) }
            var views: [String] = []
            var events: [VersionEvent] = []
            // Other instances committed versions below this commit's that this one has not
            // applied yet: they go first, in order, through the same path. When they cannot be
            // read now (the database just went away), this commit is durable all the same and
            // the follower applies it, after them, once it can.
            var reached = applied.current
            if first - 1 > reached {
                reached = catchUpLocked(through: first - 1, next: &next, partitionVersions: &partitionVersions, views: &views,
                                        events: &events)
            }
            if reached == first - 1 {
                for (writes, result) in zip(accepted, committed) where result.changedAnything {
                    advance(by: writes, result: result, next: &next, partitionVersions: &partitionVersions, ahead: ahead)
                }
                reached = changed[changed.count - 1].sequence
            }
            events += publish(next, partitionVersions: partitionVersions)
            // Views before the version moves (see ``catchUp()``).
            if !views.isEmpty { viewsChanged(views) }
            applied.advance(to: reached)
            return (results, events)
        }
    }

    /// A group's writes as the store takes them (patches are merged into upserts before).
    static func recordWrites(_ writes: [Write]) -> [RecordWrite] {
        writes.map { write -> RecordWrite in
            switch write {
            case .upsert(let collection, let record):
                .upsert(collection: collection, id: record.id, json: record.json)
            case .delete(let collection, let id):
                .delete(collection: collection, id: id)
            case .patch:
                preconditionFailure("patches are merged before the commit")
            }
        }
    }

    /// Publishes the writer's new states and partition versions, and returns the events they make.
    func publish(_ next: [MaterializationKey: ListState], partitionVersions: [MaterializationKey: Int64]) -> [VersionEvent] {
        // Also with nothing to publish: the cache forgets what the writer looked at and took, so
        // that the next batch does not take a search result installed since for one it saw.
        cache.publish(next, partitionVersions: partitionVersions)
        // A language's rows and a search's result move with the list (or partition) they are
        // taken from: no events of their own.
        var events = next.filter { $0.key.language == nil && $0.key.query == nil }.map { VersionEvent(stream: $0.key.streamName, list: $0.key.list, version: $0.value.version) }
        for (key, version) in partitionVersions where next[key] == nil && key.language == nil {
            events.append(VersionEvent(stream: key.streamName, list: key.list, version: version))
        }
        return events
    }
}

/// A list (or a user's partition of one) reached a new version: what event streams hear.
public struct VersionEvent: Sendable, Equatable {
    /// The streams to wake: the list's name, or the list and partition for a per-user list.
    public let stream: String
    public let list: String
    public let version: Int64
    /// A change of the list's definition: every stream of the list, its users' too, hears
    /// `version` and ends (``EventHub/publish(_:)``).
    public var endsStreams = false
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
