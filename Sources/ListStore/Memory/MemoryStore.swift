import ListModel
import Locking

/// A store that lives in memory only: for tests and demos (`--memory`). Same semantics as
/// ``SQLiteStore`` (one change sequence, atomic commits), nothing survives the process.
///
/// Its numbers start where ``init(after:)`` says: a server starts them at ``ChangeNumbers/fromClock()``,
/// so a restarted store never hands out a version, a record's tag or a definition's revision an
/// earlier process handed out (a client's `304`, `If-Match` or `changes?since=` from before the
/// restart would otherwise match different data that reached the same number).
public final class MemoryStore: RecordStore, Sendable {
    private struct State {
        var records: [String: [String: [UInt8]]] = [:]
        /// The number of the commit that last wrote each record.
        var versions: [String: [String: Int64]] = [:]
        var collectionSequences: [String: Int64] = [:]
        var sequence: Int64 = 0
        var views: [String: StoredView] = [:]
        /// Prepared fields by collection, and their keys' versions by "collection field key".
        var fields: [String: [FieldPath]] = [:]
        var fieldVersions: [CodePointKey: Int64] = [:]
        var definitions: [String: StoredDefinition] = [:]
        var served: [String: ServedDefinition] = [:]
        /// Webhook deliveries by webhook, list and partition.
        var outbox: [OutboxKey: OutboxRow] = [:]
    }

    /// One row of the outbox.
    struct OutboxRow {
        var request: DeliveryRequest
        /// The version since which the row has waited (its place in the claim order): kept while
        /// later versions replace the request.
        let pendingSince: Int64
        var attempts = 0
        var dueAt: Int64 = 0
        var claimedBy: String?
        var claimedUntil: Int64?
    }

    private let state: Locked<State>
    public let sequenceStart: Int64

    /// An empty store whose first change is numbered `sequence + 1`, and a list's first run-time
    /// definition revision `sequence + 1` (so revisions are not reused across restarts either).
    /// Tests start at 0; a server at ``ChangeNumbers/fromClock()``.
    public init(after sequence: Int64 = 0) {
        state = Locked(State(sequence: sequence))
        sequenceStart = sequence
    }

    public func lastSequence() throws(StoreError) -> Int64 { state.withLock { $0.sequence } }

    public func collectionSequences() throws(StoreError) -> [String: Int64] { state.withLock { $0.collectionSequences } }

    public func allRecords(in collection: String) throws(StoreError) -> [StoredRecord] {
        try records(in: collection, after: nil, limit: Int.max)
    }

    public func record(in collection: String, id: String) throws(StoreError) -> StoredRecord? {
        state.withLock { state in
            state.records[collection]?[id].map { StoredRecord(id: id, json: $0, version: state.versions[collection]?[id] ?? 0) }
        }
    }

    public func records(in collection: String, after afterID: String?, limit: Int) throws(StoreError) -> [StoredRecord] {
        state.withLock { state in
            let all = state.records[collection] ?? [:]
            let ids = all.keys.filter { id in afterID.map { $0.utf8.lexicographicallyPrecedes(id.utf8) } ?? true }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            return ids.prefix(limit).map { StoredRecord(id: $0, json: all[$0]!) }
        }
    }

    public func commit(groups: [[RecordWrite]], previousIn: Set<String>, deliveries: DeliveryPlanner) throws(StoreError) -> [CommitResult] {
        let results = groups.map { writes in commitGroup(writes, previousIn: previousIn) }
        let requests = DeliveryRequest.coalesced(deliveries(groups, results))
        state.withLock { state in
            for request in requests { Self.record(request, in: &state) }
        }
        return results
    }

    /// Adds a delivery to the outbox, or moves its row to the later version.
    private static func record(_ request: DeliveryRequest, in state: inout State) {
        let key = request.outboxKey
        guard var row = state.outbox[key] else {
            state.outbox[key] = OutboxRow(request: request, pendingSince: request.version)
            return
        }
        if request.version >= row.request.version { row.request = request }
        state.outbox[key] = row
    }

    /// Records the deliveries of a change of definitions at its number `sequence`.
    private static func record(_ deliveries: [DefinitionDeliveries], at sequence: Int64, in state: inout State) {
        for request in deliveries.flatMap({ $0.requests(at: sequence) }) { record(request, in: &state) }
    }

    public func claimDeliveries(webhooks: [String], now: Int64, claimUntil: Int64, owner: String, limit: Int) throws(StoreError) -> [PendingDelivery] {
        state.withLock { state in
            let due = state.outbox.filter { key, row in
                webhooks.contains(key.webhook.string) && row.dueAt <= now && (row.claimedUntil ?? 0) <= now
            }.sorted {
                ($0.value.pendingSince, $0.key.list.string, $0.key.partition.string)
                    < ($1.value.pendingSince, $1.key.list.string, $1.key.partition.string)
            }
            return due.prefix(limit).map { key, row in
                state.outbox[key]?.claimedBy = owner
                state.outbox[key]?.claimedUntil = claimUntil
                return PendingDelivery(webhook: key.webhook.string, list: key.list.string, partition: key.partition.string,
                                       user: row.request.user, version: row.request.version, attempts: row.attempts)
            }
        }
    }

    public func deliveryAccepted(_ delivery: PendingDelivery, owner: String) throws(StoreError) {
        state.withLock { state in
            let key = OutboxKey(webhook: delivery.webhook, list: delivery.list, partition: delivery.partition)
            guard let row = state.outbox[key] else { return }
            if row.request.version <= delivery.version {
                state.outbox[key] = nil
            } else if row.claimedBy == owner {
                state.outbox[key] = OutboxRow(request: row.request, pendingSince: row.request.version)
            }
        }
    }

    public func deliveryFailed(_ delivery: PendingDelivery, owner: String, retryAt: Int64) throws(StoreError) {
        state.withLock { state in
            let key = OutboxKey(webhook: delivery.webhook, list: delivery.list, partition: delivery.partition)
            guard var row = state.outbox[key], row.claimedBy == owner else { return }
            row.attempts += 1
            row.dueAt = retryAt
            row.claimedBy = nil
            row.claimedUntil = nil
            state.outbox[key] = row
        }
    }

    public func deliveryReleased(_ delivery: PendingDelivery, owner: String) throws(StoreError) {
        state.withLock { state in
            let key = OutboxKey(webhook: delivery.webhook, list: delivery.list, partition: delivery.partition)
            guard state.outbox[key]?.claimedBy == owner else { return }
            state.outbox[key]?.claimedBy = nil
            state.outbox[key]?.claimedUntil = nil
        }
    }

    public func outboxStatus(webhooks: [String]) throws(StoreError) -> OutboxStatus {
        state.withLock { state in
            let rows = state.outbox.filter { webhooks.contains($0.key.webhook.string) }.values
            return OutboxStatus(pending: rows.count, nextDue: rows.map { max($0.dueAt, $0.claimedUntil ?? 0) }.min())
        }
    }

    public func dropDeliveries(except followed: [String: [String]]) throws(StoreError) -> Int {
        state.withLock { state in
            let before = state.outbox.count
            state.outbox = state.outbox.filter { followed[$0.key.webhook.string]?.contains($0.key.list.string) ?? false }
            return before - state.outbox.count
        }
    }

    public func prepareField(_ field: FieldPath, in collection: String) throws(StoreError) {
        state.withLock { state in
            guard !(state.fields[collection]?.contains(field) ?? false) else { return }
            state.fields[collection, default: []].append(field)
            for (id, json) in state.records[collection] ?? [:] {
                guard let value = try? JSONParser.parse(json), let key = ScalarKey(field: field, of: value) else { continue }
                let name = Self.fieldVersionName(collection, field, key)
                state.fieldVersions[name] = max(state.fieldVersions[name] ?? 0, state.versions[collection]?[id] ?? 0)
            }
        }
    }

    public func fieldVersion(_ field: FieldPath, in collection: String, key: ScalarKey) throws(StoreError) -> Int64? {
        state.withLock { $0.fieldVersions[Self.fieldVersionName(collection, field, key)] }
    }

    public var tracksFieldVersions: Bool { true }

    private static func fieldVersionName(_ collection: String, _ field: FieldPath, _ key: ScalarKey) -> CodePointKey {
        CodePointKey("\(collection)\u{0}\(field)\u{0}\(key.text)")
    }

    /// Moves the versions of the prepared fields' keys a write touches (before and after).
    private static func touchFields(_ state: inout State, collection: String, old: [UInt8]?, new: [UInt8]?, sequence: Int64) {
        guard let fields = state.fields[collection] else { return }
        let records = [old, new].compactMap { $0.flatMap { try? JSONParser.parse($0) } }
        for field in fields {
            for record in records {
                if let key = ScalarKey(field: field, of: record) { state.fieldVersions[fieldVersionName(collection, field, key)] = sequence }
            }
        }
    }

    public func records(in collection: String, field: FieldPath, equals value: JSONValue) throws(StoreError) -> [StoredRecord] {
        try allRecords(in: collection).filter { record in
            guard case .object(let object)? = try? JSONParser.parse(record.json) else { return false }
            return field.lookup(in: object) == value
        }
    }

    private func commitGroup(_ writes: [RecordWrite], previousIn: Set<String>) -> CommitResult {
        state.withLock { state in
            let sequence = state.sequence + 1
            var existed: [Bool] = []
            var previous: [[UInt8]?] = []
            var changed = false
            for write in writes {
                switch write {
                case .upsert(let collection, let id, let json):
                    let old = state.records[collection]?[id]
                    existed.append(old != nil)
                    previous.append(previousIn.contains(collection) ? old : nil)
                    state.records[collection, default: [:]][id] = json
                    state.versions[collection, default: [:]][id] = sequence
                    Self.touchFields(&state, collection: collection, old: old, new: json, sequence: sequence)
                    state.collectionSequences[collection] = sequence
                    changed = true
                case .delete(let collection, let id):
                    let old = state.records[collection]?.removeValue(forKey: id)
                    state.versions[collection]?.removeValue(forKey: id)
                    let removed = old != nil
                    existed.append(removed)
                    previous.append(previousIn.contains(collection) ? old : nil)
                    if removed {
                        Self.touchFields(&state, collection: collection, old: old, new: nil, sequence: sequence)
                        state.collectionSequences[collection] = sequence
                        changed = true
                    }
                }
            }
            if changed { state.sequence = sequence }
            return CommitResult(sequence: state.sequence, existed: existed, changedAnything: changed, previous: previous)
        }
    }

    public func saveView(_ view: StoredView) throws(StoreError) { state.withLock { $0.views[view.id] = view } }

    public func updateView(_ view: StoredView, replacing previous: [String]) throws(StoreError) -> Bool {
        state.withLock { state in
            // By code points, as the other stores compare the stored text.
            guard let stored = state.views[view.id], stored.hidden.elementsEqual(previous, by: { $0.utf8.elementsEqual($1.utf8) }) else {
                return false
            }
            state.views[view.id] = view
            return true
        }
    }

    public func allViews() throws(StoreError) -> [StoredView] {
        state.withLock { $0.views.values.sorted { $0.id < $1.id } }
    }

    public func deleteView(id: String) throws(StoreError) -> Bool {
        state.withLock { $0.views.removeValue(forKey: id) != nil }
    }

    public func touchViews(_ ids: [String], at time: Int64) throws(StoreError) {
        state.withLock { state in
            for id in ids { if let used = state.views[id]?.lastUsed { state.views[id]?.lastUsed = max(used, time) } }
        }
    }

    public func deleteViews(ids: [String]) throws(StoreError) -> Int {
        state.withLock { state in ids.reduce(0) { $0 + (state.views.removeValue(forKey: $1) != nil ? 1 : 0) } }
    }

    public func saveDefinition(list: String, json: [UInt8]?, expecting: DefinitionExpectation,
                               deliveries: DefinitionDeliveries?) throws(StoreError) -> DefinitionSave {
        state.withLock { state in
            let old = state.definitions[list]
            let live = old?.json != nil
            guard json != nil || live else { return .nothingToRemove }
            guard expecting.holds(live ? old?.revision : nil) else { return .failed }
            state.sequence += 1
            let saved = StoredDefinition(list: list, json: json, revision: (old?.revision ?? sequenceStart) + 1, sequence: state.sequence)
            state.definitions[list] = saved
            Self.record(deliveries.map { [$0] } ?? [], at: state.sequence, in: &state)
            return .saved(saved, replaced: live)
        }
    }

    public func takeSequence(deliveries: [DefinitionDeliveries]) throws(StoreError) -> Int64 {
        state.withLock { state in
            state.sequence += 1
            Self.record(deliveries, at: state.sequence, in: &state)
            return state.sequence
        }
    }

    public func allDefinitions() throws(StoreError) -> [StoredDefinition] {
        state.withLock { $0.definitions.values.sorted { $0.list.utf8.lexicographicallyPrecedes($1.list.utf8) } }
    }

    public func recordServed(_ served: [String: ServedDefinition]) throws(StoreError) {
        state.withLock { $0.served.merge(served) { $1 } }
    }

    public func servedDefinitions() throws(StoreError) -> [String: ServedDefinition] {
        state.withLock { $0.served }
    }

    public func close() {}
}
