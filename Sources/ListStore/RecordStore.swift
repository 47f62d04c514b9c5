import ListModel

/// Persistence of records, views and the change sequence, behind one protocol so the service
/// runs on SQLite (embedded default) or in memory (tests, demos) alike.
///
/// Every committed ``RecordStore/commit(_:)`` takes the next number of one store-wide change
/// sequence; a collection remembers the number of the last commit that touched it. Replaying the
/// same commits in order therefore yields the same numbers, which is what list versions are made of.
public protocol RecordStore: AnyObject, Sendable {
    /// The number of the last committed change; ``sequenceStart`` (0 but for a memory store) for a new store.
    func lastSequence() throws(StoreError) -> Int64
    /// The number this store's changes are numbered after (its first is one more), so a version
    /// from 1 up to it was never this store's: 0 for a durable store, whose numbers survive
    /// restarts; a server's memory store starts at the clock (``MemoryStore/init(after:)``).
    var sequenceStart: Int64 { get }
    /// The number of the last change that touched each collection.
    func collectionSequences() throws(StoreError) -> [String: Int64]
    /// Every record of a collection, by id ascending.
    func allRecords(in collection: String) throws(StoreError) -> [StoredRecord]
    /// Every record of a collection, by id ascending, handed to `body` in pages of at most
    /// `pageSize` records as they are read, so that a caller can work on one page while the
    /// next is read. A store that reads all at once hands them over in pages afterwards.
    func forEachPage(in collection: String, pageSize: Int,
                     _ body: @Sendable ([StoredRecord]) throws(StoreError) -> Void) throws(StoreError)
    /// One record with its version, or nil.
    func record(in collection: String, id: String) throws(StoreError) -> StoredRecord?
    /// The records of `collection` with these ids (those that exist; an id given twice is read
    /// once), by id ascending in code-point order.
    func records(in collection: String, ids: [String]) throws(StoreError) -> [StoredRecord]
    /// Up to `limit` records with ids after `afterID` (all when nil), by id ascending.
    func records(in collection: String, after afterID: String?, limit: Int) throws(StoreError) -> [StoredRecord]
    /// Applies groups of writes in one transaction (all or nothing), durable when this returns;
    /// each group takes its own change number, in order (group commit: one fsync for many writes).
    /// For writes to a collection in `previousIn`, each result also holds the record's JSON as
    /// it was before the write (per-user lists need the old owner of a record that moves).
    /// The webhook deliveries `deliveries` asks for are recorded in the outbox in the same
    /// transaction (see ``DeliveryRequest``).
    func commit(groups: [[RecordWrite]], previousIn: Set<String>, deliveries: DeliveryPlanner) throws(StoreError) -> [CommitResult]

    /// Commits the groups `prepare` makes, as ``commit(groups:previousIn:deliveries:)`` does. `prepare` runs
    /// while no other writer of the store can commit (on PostgreSQL: no other instance either),
    /// with a look-up of the committed records, and returns per group its writes, or nil when
    /// the group is refused (a write's conditions checked, or a patch merged, against what is
    /// really committed). A refused group writes nothing and answers nil. `prepare` may run
    /// again when the store retries the transaction: it must start afresh each time.
    func commit(previousIn: Set<String>, deliveries: DeliveryPlanner,
                prepare: (RecordLookup) throws(StoreError) -> [[RecordWrite]?]) throws(StoreError) -> [CommitResult?]

    /// Makes ``records(in:field:equals:)`` on this field fast (SQLite: an expression index,
    /// created once and kept).
    func prepareField(_ field: FieldPath, in collection: String) throws(StoreError)
    /// The number of the last commit that wrote a record of `collection` whose `field` held
    /// `key` before or after the write (a per-user partition's version); nil when none did.
    /// Kept for every field passed to ``prepareField(_:in:)`` (records stored before the field
    /// was prepared count with the commit that last wrote them).
    func fieldVersion(_ field: FieldPath, in collection: String, key: ScalarKey) throws(StoreError) -> Int64?
    /// Whether ``fieldVersion(_:in:key:)`` is kept (else it answers nil, and callers fall back).
    var tracksFieldVersions: Bool { get }
    /// The records of a collection whose JSON holds the scalar `value` at `field`, by id
    /// ascending. May return more (SQLite compares `true` equal to `1`): callers check each
    /// record exactly.
    func records(in collection: String, field: FieldPath, equals value: JSONValue) throws(StoreError) -> [StoredRecord]

    /// Creates or replaces a view.
    func saveView(_ view: StoredView) throws(StoreError)
    /// Replaces a view that exists and still hides `previous` (its keys as last read); false,
    /// storing nothing, otherwise: a change racing a delete never brings the view back, and one
    /// racing another instance's change of the same view never undoes it (read it again and
    /// retry).
    func updateView(_ view: StoredView, replacing previous: [String]) throws(StoreError) -> Bool
    /// Every stored view.
    func allViews() throws(StoreError) -> [StoredView]
    /// One stored view, or nil.
    func view(id: String) throws(StoreError) -> StoredView?
    /// Deletes a view; false when there was none.
    func deleteView(id: String) throws(StoreError) -> Bool
    /// Records that the views were used at `time` (seconds since 1970), in one transaction; a
    /// view's time never goes back (an instance's flush may come after a later one's).
    func touchViews(_ ids: [String], at time: Int64) throws(StoreError)
    /// Deletes the views with these ids, in one transaction; returns how many existed.
    func deleteViews(ids: [String]) throws(StoreError) -> Int

    /// Runs `body` so that every read it makes sees one committed state of the store, whatever
    /// other processes commit meanwhile (PostgreSQL: one `REPEATABLE READ` transaction). Stores
    /// only this process writes need nothing more than the caller's lock against its own writes.
    func readConsistently<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T

    /// Stores a list's run-time definition (`json`), or removes it (`json` nil), as one commit
    /// under the next change number, durable when this returns. The definition's revision grows
    /// by one with every change, removals included, so a revision is never reused. Removing a
    /// definition that is not stored changes nothing (``DefinitionSave/nothingToRemove``); then a
    /// change whose `expecting` does not hold of the stored state (read in the commit, under the
    /// lock every change takes) changes nothing (``DefinitionSave/failed``). Says whether a
    /// run-time definition was in force just before (read in the commit, so true for the second
    /// of two instances creating the same list at once). The webhook deliveries `deliveries`
    /// asks for (nil: none) are recorded in the same commit, at its number.
    func saveDefinition(list: String, json: [UInt8]?, expecting: DefinitionExpectation,
                        deliveries: DefinitionDeliveries?) throws(StoreError) -> DefinitionSave
    /// Every list's run-time definition, by list name — removed ones too (with `json` nil), so
    /// their change numbers and revisions are known.
    func allDefinitions() throws(StoreError) -> [StoredDefinition]
    /// Takes the next change number for a change made outside the store (the config file's
    /// lists re-read), durably, so the lists it changes move to a version no commit shares; the
    /// webhook deliveries of the lists it moves (`deliveries`) are recorded with it, at that number.
    func takeSequence(deliveries: [DefinitionDeliveries]) throws(StoreError) -> Int64
    /// Records which definition each of these lists is served with (by fingerprint) and the
    /// change number it came into force at, replacing what was recorded for them: a server that
    /// starts with a list's definition changed since then moves the list to a new version, and
    /// one whose definition is unchanged never shows a version below that number.
    func recordServed(_ served: [String: ServedDefinition]) throws(StoreError)
    /// What ``recordServed(_:)`` recorded, by list.
    func servedDefinitions() throws(StoreError) -> [String: ServedDefinition]
    /// Records each of these lists as served with its fingerprint from one new change number,
    /// taken here as ``takeSequence(deliveries:)`` takes one — but for a list the store records with that
    /// fingerprint already (another instance, starting with the same changed definition, came
    /// first); returns what the store records for each of these lists after. One number for
    /// all, none when every list was recorded: instances that start at once with an edited
    /// configuration serve each list at one version between them. A store one server has to
    /// itself does it in steps (``takeSequence(deliveries:)``, then ``recordServed(_:)``); a shared one in
    /// one transaction. The webhook deliveries of the lists it moves (those of `deliveries` whose
    /// list took the new number) are recorded with the number.
    func recordServedChange(_ fingerprints: [String: UInt64],
                            deliveries: [DefinitionDeliveries]) throws(StoreError) -> [String: ServedDefinition]

    /// Claims up to `limit` deliveries of `webhooks` that are due at `now` (milliseconds since
    /// 1970) and not claimed by a worker whose claim still runs, for `owner` until `claimUntil`,
    /// longest waiting first: by the change number since which each row has waited (the version
    /// it was recorded at; one moved to a later version keeps its place, and one delivered while a
    /// later version came waits since that version), so partitions written over and over cannot
    /// keep the others waiting, and a retried row is not put behind newer ones. Several workers
    /// (instances) never hold the same row at once.
    func claimDeliveries(webhooks: [String], now: Int64, claimUntil: Int64, owner: String, limit: Int) throws(StoreError) -> [PendingDelivery]
    /// The receiver took `delivery`, sent by `owner`: its row goes, unless a later version was
    /// recorded meanwhile; then that one is due at once, if `owner` still holds the row (another
    /// worker that took it when `owner`'s claim ran out keeps its claim, or its retry time).
    func deliveryAccepted(_ delivery: PendingDelivery, owner: String) throws(StoreError)
    /// An attempt of `owner`'s failed: the row is released, due again at `retryAt`, with one
    /// more failed attempt counted.
    func deliveryFailed(_ delivery: PendingDelivery, owner: String, retryAt: Int64) throws(StoreError)
    /// `owner` gave `delivery` up without an outcome (the server is stopping): the row is
    /// released, due as it was (at once), its failed attempts unchanged.
    func deliveryReleased(_ delivery: PendingDelivery, owner: String) throws(StoreError)
    /// The rows of `webhooks` pending and when the next falls due.
    func outboxStatus(webhooks: [String]) throws(StoreError) -> OutboxStatus
    /// Removes every row but those of the lists `followed` gives for its webhook (webhook name to
    /// the lists it follows): the rows of webhooks no longer configured, and of lists a webhook
    /// no longer follows. Returns how many.
    func dropDeliveries(except followed: [String: [String]]) throws(StoreError) -> Int

    /// Closes the store; later calls fail.
    func close()
}

extension RecordStore {
    public var sequenceStart: Int64 { 0 }

    /// List `list`'s run-time definition as stored (`json` nil once removed), from
    /// ``allDefinitions()``; nil when none was ever stored.
    public func storedDefinition(_ list: String) throws(StoreError) -> StoredDefinition? {
        try allDefinitions().first { $0.list == list }
    }

    /// Applies the writes as one transaction (all or nothing) under one change number.
    public func commit(_ writes: [RecordWrite]) throws(StoreError) -> CommitResult {
        try commit(groups: [writes])[0]
    }

    public func fieldVersion(_ field: FieldPath, in collection: String, key: ScalarKey) throws(StoreError) -> Int64? { nil }
    public var tracksFieldVersions: Bool { false }

    /// Asks `prepare` with ``record(in:id:)``, then commits the groups it makes: right for a
    /// store only this process writes, whose caller serialises its commits.
    public func commit(previousIn: Set<String>, deliveries: DeliveryPlanner,
                       prepare: (RecordLookup) throws(StoreError) -> [[RecordWrite]?]) throws(StoreError) -> [CommitResult?] {
        let groups = try prepare { collection, id throws(StoreError) in try record(in: collection, id: id) }
        let chosen = groups.compactMap { $0 }
        var committed = (chosen.isEmpty ? [] : try commit(groups: chosen, previousIn: previousIn, deliveries: deliveries)).makeIterator()
        return groups.map { $0 == nil ? nil : committed.next() }
    }

    /// ``commit(previousIn:deliveries:prepare:)`` with no webhook deliveries.
    public func commit(previousIn: Set<String>,
                       prepare: (RecordLookup) throws(StoreError) -> [[RecordWrite]?]) throws(StoreError) -> [CommitResult?] {
        try commit(previousIn: previousIn, deliveries: { _, _ in [] }, prepare: prepare)
    }

    /// ``commit(groups:previousIn:deliveries:)`` with no webhook deliveries.
    public func commit(groups: [[RecordWrite]], previousIn: Set<String>) throws(StoreError) -> [CommitResult] {
        try commit(groups: groups, previousIn: previousIn, deliveries: { _, _ in [] })
    }

    public func view(id: String) throws(StoreError) -> StoredView? { try allViews().first { $0.id == id } }

    public func readConsistently<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T { try body() }

    /// One ``record(in:id:)`` per id: right for a store whose reads cost no round trip.
    public func records(in collection: String, ids: [String]) throws(StoreError) -> [StoredRecord] {
        var found: [StoredRecord] = []
        for id in Set(ids).sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            if let record = try record(in: collection, id: id) { found.append(record) }
        }
        return found
    }

    public func forEachPage(in collection: String, pageSize: Int,
                            _ body: @Sendable ([StoredRecord]) throws(StoreError) -> Void) throws(StoreError) {
        let all = try allRecords(in: collection)
        for start in stride(from: 0, to: all.count, by: max(1, pageSize)) {
            try body(Array(all[start..<min(start + max(1, pageSize), all.count)]))
        }
    }

    /// Applies groups of writes in one transaction; see ``commit(groups:previousIn:)``.
    public func commit(groups: [[RecordWrite]]) throws(StoreError) -> [CommitResult] {
        try commit(groups: groups, previousIn: [])
    }
}

/// Reads one committed record (collection, id) for a commit's conditions.
public typealias RecordLookup = (_ collection: String, _ id: String) throws(StoreError) -> StoredRecord?

/// A stored record: its id, its JSON object text (UTF-8) and its version (the number of the
/// commit that last wrote it; 0 where a read does not say).
public struct StoredRecord: Sendable, Equatable {
    public let id: String
    public let json: [UInt8]
    public let version: Int64

    public init(id: String, json: [UInt8], version: Int64 = 0) {
        self.id = id
        self.json = json
        self.version = version
    }
}

/// One write of a commit.
public enum RecordWrite: Sendable, Equatable {
    case upsert(collection: String, id: String, json: [UInt8])
    case delete(collection: String, id: String)
}

/// What a commit did.
public struct CommitResult: Sendable, Equatable {
    /// The change number given to this commit; unchanged from before when it changed nothing.
    public let sequence: Int64
    /// For each write, whether its record existed before the commit.
    public let existed: [Bool]
    /// Whether anything changed (a delete of a missing record changes nothing).
    public var changedAnything: Bool
    /// For each write to a collection the commit was asked about, the record's JSON before
    /// the write (nil when it did not exist, or was not asked about).
    public var previous: [[UInt8]?]
    /// `collection/id` of the records whose expected version did not hold: when any, the
    /// group wrote nothing (decided by the caller before the store saw it).
    public var conflicts: [String] = []

    public init(sequence: Int64, existed: [Bool], changedAnything: Bool, previous: [[UInt8]?] = []) {
        self.sequence = sequence
        self.existed = existed
        self.changedAnything = changedAnything
        self.previous = previous.isEmpty ? Array(repeating: nil, count: existed.count) : previous
    }
}

/// A list definition changed at run time, as stored.
public struct StoredDefinition: Sendable, Equatable {
    public let list: String
    /// The definition's JSON text; nil once removed.
    public let json: [UInt8]?
    /// Counts the definition's changes (1 for the first); removals count too.
    public let revision: Int64
    /// The number of the commit that made this change.
    public let sequence: Int64

    public init(list: String, json: [UInt8]?, revision: Int64, sequence: Int64) {
        self.list = list
        self.json = json
        self.revision = revision
        self.sequence = sequence
    }
}

/// The definition a list is served with, by fingerprint, and the change number it came into
/// force at (0 for a definition first served with no change made for it).
public struct ServedDefinition: Sendable, Equatable {
    /// The fingerprint recorded for a list no longer served (removed by a reload or by deleting
    /// its run-time definition), and for every list of a restored backup copy: 0, which a
    /// definition's 64-bit hash is taken not to be.
    public static let removedFingerprint: UInt64 = 0

    public let fingerprint: UInt64
    public let sequence: Int64

    public init(fingerprint: UInt64, sequence: Int64) {
        self.fingerprint = fingerprint
        self.sequence = sequence
    }
}

/// A client's per-list state: which sections it hides, by key.
public struct StoredView: Sendable, Equatable {
    public let id: String
    public let list: String
    /// The user the view belongs to (on lists read by signed-in users); nil for everyone's.
    public let owner: String?
    public var hidden: [String]
    /// Seconds since 1970.
    public var lastUsed: Int64

    public init(id: String, list: String, owner: String? = nil, hidden: [String], lastUsed: Int64) {
        self.id = id
        self.list = list
        self.owner = owner
        self.hidden = hidden
        self.lastUsed = lastUsed
    }
}

extension RecordStore {
    /// ``recordServedChange(_:deliveries:)`` for a store no other server writes: a read, then at
    /// most one number and one record, with nothing between them but this server's own start.
    public func recordServedChange(_ fingerprints: [String: UInt64],
                                   deliveries: [DefinitionDeliveries]) throws(StoreError) -> [String: ServedDefinition] {
        let served = try servedDefinitions()
        var result = served.filter { fingerprints[$0.key] == $0.value.fingerprint }
        let changed = fingerprints.filter { served[$0.key]?.fingerprint != $0.value }
        guard !changed.isEmpty else { return result }
        let sequence = try takeSequence(deliveries: deliveries.filter { changed[$0.list] != nil })
        let recorded = changed.mapValues { ServedDefinition(fingerprint: $0, sequence: sequence) }
        try recordServed(recorded)
        result.merge(recorded) { $1 }
        return result
    }
}
