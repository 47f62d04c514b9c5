import Dispatch
import HTTPServer
import ListModel
import ListStore
import Synchronization

/// The application's state: the current snapshot of every list, and the one path by which
/// record writes reach the store and then the lists.
///
/// Reads take the current ``ListState`` under a short lock and work on it without waiting for
/// writers. Writes are serialised: the store commits (durably), then every list that reads the
/// written collection gets its next snapshot, derived incrementally, with the commit's number
/// as its version.
public final class ViewModelStore: Sendable {
    /// Largest number of writes in one batch.
    public static let maxBatchOperations = 10_000

    public let definitions: [ListDefinition]
    public let store: RecordStore
    private let states: Mutex<[String: ListState]>
    private let histories: [String: ListHistory]
    private let writer = Mutex<Void>(())
    /// The one thread that runs HTTP writes, so a server thread never waits on an fsync.
    private let writerQueue = DispatchQueue(label: "sectional.writer", qos: .userInitiated)
    private let log: Log
    private let onChange: @Sendable ([(list: String, version: Int64)]) -> Void
    private let metrics: Metrics
    private let duplicateLog = DuplicateLogLimiter()

    /// Builds every list from the store's records. `onChange` hears of every new list version
    /// (on the writer's path: it must return at once).
    public init(definitions: [ListDefinition], store: RecordStore, log: Log, metrics: Metrics = Metrics(),
                onChange: @escaping @Sendable ([(list: String, version: Int64)]) -> Void = { _ in }) throws(StoreError) {
        self.definitions = definitions
        self.store = store
        self.log = log
        self.metrics = metrics
        self.onChange = onChange
        let sequences = try store.collectionSequences()
        var parsed: [String: [JSONValue]] = [:]
        var states: [String: ListState] = [:]
        var histories: [String: ListHistory] = [:]
        for definition in definitions {
            for source in definition.sources where parsed[source] == nil {
                parsed[source] = try Self.parseAll(try store.allRecords(in: source), collection: source, log: log)
            }
            let snapshot = ListSnapshot.build(definition: definition, records: parsed)
            let version = definition.sources.compactMap { sequences[$0] }.max() ?? 0
            states[definition.name] = ListState(snapshot: snapshot, version: version)
            histories[definition.name] = ListHistory(first: .init(version: version, snapshot: snapshot, changed: []))
            metrics.recordDuplicates(list: definition.name, count: snapshot.duplicateRowCount)
        }
        self.states = Mutex(states)
        self.histories = histories
        for definition in definitions {
            logDuplicates(list: definition.name, count: states[definition.name]?.snapshot.duplicateRowCount ?? 0)
        }
    }

    /// Parses stored records on every core (start-up cost follows the data; this halves it).
    private static func parseAll(_ records: [StoredRecord], collection: String, log: Log) throws(StoreError) -> [JSONValue] {
        let parts = records.count < 10_000 ? 1 : System.coreCount * 2
        let size = (records.count + parts - 1) / max(parts, 1)
        let results = Mutex([[JSONValue]](repeating: [], count: parts))
        let unreadable = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let range = min(part * size, records.count)..<min((part + 1) * size, records.count)
            var values: [JSONValue] = []
            values.reserveCapacity(range.count)
            for record in records[range] {
                do {
                    values.append(try JSONParser.parse(record.json))
                } catch {
                    unreadable.withLock { $0.append(record.id) }
                }
            }
            results.withLock { $0[part] = values }
        }
        for id in unreadable.withLock({ $0 }) {
            log.error("skipping unreadable stored record", ["collection": .text(collection), "id": .text(id)])
        }
        return results.withLock { $0.flatMap { $0 } }
    }

    /// The current state of a list, or nil when there is no such list.
    public func list(_ name: String) -> ListState? {
        states.withLock { $0[name] }
    }

    /// The recent versions of a list.
    func history(of name: String) -> ListHistory? { histories[name] }

    /// The current state of every list, in definition order.
    public func allLists() -> [ListState] {
        let current = states.withLock { $0 }
        return definitions.compactMap { current[$0.name] }
    }

    /// Logs a list's count of dropped duplicate rows when it changed, at most once a minute.
    private func logDuplicates(list: String, count: Int) {
        guard log.level <= .warn, duplicateLog.shouldLog(list: list, count: count) else { return }
        log.warn("duplicate rows dropped", ["list": .text(list), "count": .number(Double(count))])
    }

    /// Each list's `changes` history: versions kept and the written row ids they name.
    func historySizes() -> [(list: String, versions: Int, rows: Int)] {
        definitions.compactMap { definition in
            histories[definition.name].map { history in
                let size = history.size
                return (definition.name, size.versions, size.rows)
            }
        }
    }

    /// Writes waiting for the writer thread.
    var queuedWrites: Int { pending.withLock { $0.reduce(0) { $0 + $1.writes.count } } }

    /// One write, parsed and checked by the caller.
    public enum Write: Sendable {
        case upsert(collection: String, record: JSONValue, json: [UInt8])
        case delete(collection: String, id: String)
    }

    /// A write waiting for the writer thread.
    private struct Pending {
        let writes: [Write]
        let completion: @Sendable (Result<CommitResult, StoreError>) -> Void
    }

    /// Writes queued for the writer thread, committed together (group commit).
    private let pending = Mutex<[Pending]>([])

    /// Commits `writes` on the writer thread; `completion` gets the outcome there. Writes that
    /// queue up while one commit runs are committed together by the next (one transaction and
    /// one fsync for all, each still its own version), so a server thread never waits on disk.
    public func commitLater(_ writes: [Write], completion: @escaping @Sendable (Result<CommitResult, StoreError>) -> Void) {
        let first = pending.withLock { queue -> Bool in
            queue.append(Pending(writes: writes, completion: completion))
            return queue.count == 1
        }
        if first { writerQueue.async { [self] in drainPending() } }
    }

    private func drainPending() {
        while true {
            let batch = pending.withLock { queue -> [Pending] in
                // Hand over the buffer and start a new one (clearing the shared buffer "keeping
                // capacity" would copy its capacity, which can only ratchet up).
                defer { queue = [] }
                return queue
            }
            guard !batch.isEmpty else { return }
            do {
                let (results, versions) = try commit(groups: batch.map(\.writes))
                // Answer the writers first, then wake the event streams (their fan-out would
                // otherwise queue ahead of the answers on the server threads).
                for (item, result) in zip(batch, results) { item.completion(.success(result)) }
                if !versions.isEmpty { onChange(versions) }
            } catch {
                for item in batch { item.completion(.failure(error)) }
            }
        }
    }

    /// Commits groups of writes in one transaction, each group its own version, then publishes
    /// every touched list once, at its last version (the versions between are in its history).
    /// Returns what the store did and the lists' new versions, for the caller to announce.
    private func commit(groups: [[Write]]) throws(StoreError) -> (results: [CommitResult], versions: [(list: String, version: Int64)]) {
        try writer.withLock { _ throws(StoreError) -> ([CommitResult], [(list: String, version: Int64)]) in
            let storeGroups = groups.map { writes in
                writes.map { write -> RecordWrite in
                    switch write {
                    case .upsert(let collection, let record, let json):
                        .upsert(collection: collection, id: record["id"]?.stringValue ?? "", json: json)
                    case .delete(let collection, let id):
                        .delete(collection: collection, id: id)
                    }
                }
            }
            let started = ContinuousClock.now
            let results = try store.commit(groups: storeGroups)
            let elapsed = ContinuousClock.now - started
            metrics.recordStoreWrite(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            var current = states.withLock { $0 }
            var published: [String: ListState] = [:]
            for (writes, result) in zip(groups, results) where result.changedAnything {
                let next = advance(current, by: writes, result: result)
                current.merge(next) { $1 }
                published.merge(next) { $1 }
            }
            guard !published.isEmpty else { return (results, []) }
            states.withLock { states in states.merge(published) { $1 } }
            return (results, published.map { (list: $0.key, version: $0.value.version) })
        }
    }

    /// The next state of every list that reads a collection `writes` touched.
    private func advance(_ current: [String: ListState], by writes: [Write], result: CommitResult) -> [String: ListState] {
        var byCollection: [String: [RecordChange]] = [:]
        var idsByCollection: [String: [String]] = [:]
        var order: [String] = []
        for (write, existed) in zip(writes, result.existed) {
            switch write {
            case .upsert(let collection, let record, _):
                if byCollection[collection] == nil { order.append(collection) }
                byCollection[collection, default: []].append(.upsert(record))
                idsByCollection[collection, default: []].append(record["id"]?.stringValue ?? "")
            case .delete(let collection, let id):
                guard existed else { continue }
                if byCollection[collection] == nil { order.append(collection) }
                byCollection[collection, default: []].append(.delete(id: id))
                idsByCollection[collection, default: []].append(id)
            }
        }
        var next: [String: ListState] = [:]
        for definition in definitions where order.contains(where: definition.reads(collection:)) {
            guard let state = current[definition.name] else { continue }
            var snapshot = state.snapshot
            var changed: [String] = []
            for collection in order where definition.reads(collection: collection) {
                snapshot.apply(byCollection[collection]!, collection: collection)
                changed += idsByCollection[collection] ?? []
            }
            histories[definition.name]?.append(.init(version: result.sequence, snapshot: snapshot, changed: changed))
            if snapshot.duplicateRowCount != state.snapshot.duplicateRowCount {
                metrics.recordDuplicates(list: definition.name, count: snapshot.duplicateRowCount - state.snapshot.duplicateRowCount)
                logDuplicates(list: definition.name, count: snapshot.duplicateRowCount)
            }
            next[definition.name] = ListState(snapshot: snapshot, version: result.sequence)
        }
        return next
    }
}
