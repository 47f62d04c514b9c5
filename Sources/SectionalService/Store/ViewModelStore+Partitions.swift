import ListModel
import ListStore

/// Per-user lists: each user's partition is built on its first read, kept current while in
/// memory, and moved by a write only when the write changes its records.
extension ViewModelStore {
    /// The current state of one user's partition of a per-user list, built from storage (through
    /// the index on the scope field) when it is not in memory.
    ///
    /// Version: the last commit that changed the partition's records — the store keeps it for
    /// the scope field (so it survives restarts and evictions, and is the same on every
    /// instance); a store that keeps none gives the list's version at start.
    ///
    /// Consistency: the records and the partition's version are read from one committed state
    /// (and under the writer's lock, so no write of this process falls between); the snapshot is
    /// then built without it and installed only if no write applied meanwhile has moved the
    /// partition past that version (else it is built again). A write waits at most
    /// for one partition's storage read, and a build at most for one commit in progress.
    ///
    /// Definition: when that committed state holds a change of the list's definition this
    /// instance has not followed yet (another instance made it and the change log is not applied
    /// that far), the change is followed first (``followDefinition(_:at:)``, its events sent)
    /// and the partition read again: records read after a change are never built with the
    /// definition before it.
    ///
    /// Cost: one indexed read per source collection plus a build of the user's rows — O(k log k)
    /// for k records, independent of the other users' records — and a read of the stored
    /// run-time definitions' change numbers.
    public func partition(_ partition: PartitionKey, of definition: ListDefinition) throws(StoreError) -> ListState {
        let key = MaterializationKey(list: definition.name, partition: partition)
        if let state = cache.read(key) { return state }
        // Whether to look for a definition change not followed: only another instance, sharing the
        // store, can have stored one; and once (one that does not decode is skipped).
        var follow = changeLog != nil
        return try cache.building { () throws(StoreError) -> ListState in
            while true {
                let started = ContinuousClock.now
                var followed: [VersionEvent] = []
                // False when the list is not per-user any more (or not there): the partition is then
                // built as the caller asked, answered once and not kept (no write would move it).
                var inForce = true
                let read = try writer.withLock {
                    _ throws(StoreError) -> ([String: [StoredRecord]], Int64, Int64?, ListDefinition)? in
                    let epoch = cache.epoch(of: definition.name)
                    // The definition in force now (a definition change may have come since the caller looked).
                    let (found, floor, changed) = catalog.withLock {
                        ($0.definition(definition.name), $0.floors[definition.name] ?? 0, $0.changed[definition.name] ?? 0)
                    }
                    inForce = found?.scope != nil
                    let definition = inForce ? found! : definition
                    guard let scope = definition.scope else { preconditionFailure("\(definition.name) is not a per-user list") }
                    guard partition != .nobody else { return ([:], changed, epoch, definition) }
                    // The records and the version from one committed state: with other instances
                    // writing, it may be ahead of what this one has applied (the log's commits up to
                    // it are then already in the partition, and skipped when they come).
                    let (stored, version, unfollowed) = try store.readConsistently {
                        () throws(StoreError) -> ([String: [StoredRecord]], Int64?, Int64?) in
                        if follow, let change = try store.storedDefinition(definition.name)?.sequence,
                           change > changed {
                            return ([:], nil, change)
                        }
                        let (stored, version) = try readPartition(partition, scope: scope, sources: definition.sources)
                        return (stored, version, nil)
                    }
                    if let unfollowed {
                        follow = false
                        followed = try followDefinition(definition.name, at: unfollowed)
                        return nil
                    }
                    // Never below the list's last definition change (its partitions were rebuilt then).
                    return (stored, max(version ?? floor, changed), epoch, definition)
                }
                guard let (stored, version, epoch, definition) = read else {
                    if !followed.isEmpty { onChange(followed) }
                    continue
                }
                guard let scope = definition.scope else { preconditionFailure("\(definition.name) is not a per-user list") }
                var records: [String: [JSONValue]] = [:]
                for (source, list) in stored {
                    records[source] = try Self.parseAll(list, collection: source, log: log).filter { Self.owner(of: $0, scope: scope) == partition }
                }
                let snapshot = ListSnapshot.build(definition: definition, records: records)
                let state = ListState(snapshot: snapshot, version: version, partition: partition)
                guard inForce else { return state }
                if let installed = cache.install(key, state: state, epoch: epoch) {
                    metrics.recordPartitionBuild(seconds: (ContinuousClock.now - started).seconds)
                    return installed
                }
            }
        }
    }

    /// One user's records in each of `sources` and the partition's version (the last commit
    /// that touched them: ``RecordStore/fieldVersion(_:in:key:)``; nil when none did or the store
    /// keeps none), as every build of a partition, its languages and its searches reads them —
    /// inside ``RecordStore/readConsistently(_:)``, so both come from one committed state.
    /// Nobody's partition holds no records.
    func readPartition(_ partition: PartitionKey, scope: ListScope, sources: [String])
        throws(StoreError) -> (records: [String: [StoredRecord]], version: Int64?) {
        guard partition != .nobody else { return ([:], nil) }
        var records: [String: [StoredRecord]] = [:]
        var version: Int64?
        for source in sources {
            records[source] = try store.records(in: source, field: scope.field, equals: partition.value)
            if store.tracksFieldVersions, let key = ScalarKey(partition.value) {
                version = max(version ?? 0, try store.fieldVersion(scope.field, in: source, key: key) ?? 0)
            }
        }
        return (records, version)
    }

    /// The current state of one user's partition of per-user list `name`: from memory, else
    /// built as ``partition(_:of:)`` builds it; nil when there is no such per-user list, or — when
    /// `scope` is given, the split the caller chose `partition` by — when the list is not split
    /// that way (any more: its definition changed since the caller looked). A partition keyed by
    /// one claim's value is never served as another's. A warm read copies no definition.
    public func partition(_ partition: PartitionKey, ofList name: String, splitBy scope: ListScope? = nil) throws(StoreError) -> ListState? {
        let state: ListState
        if let resident = cache.read(MaterializationKey(list: name, partition: partition)) {
            state = resident
        } else {
            guard let definition = definition(name), definition.scope != nil else { return nil }
            state = try self.partition(partition, of: definition)
        }
        if let scope, state.definition.scope != scope { return nil }
        return state
    }

    /// The partition a record belongs to: its scope field's value, when that is a scalar.
    static func owner(of record: JSONValue, scope: ListScope) -> PartitionKey? {
        guard case .object(let object) = record, let value = scope.field.lookup(in: object) else { return nil }
        return PartitionKey(value)
    }

    /// Routes a group of writes to the partitions of a per-user list they change: a record
    /// written goes to its owner's partition and leaves its previous owner's; a record deleted
    /// leaves its owner's. Every such partition takes the commit's version; resident ones also
    /// take the changes (others, and one installed during the batch without an earlier commit
    /// of it — ``stateToMove`` — are rebuilt from storage when next read).
    func advancePartitions(of definition: ListDefinition, scope: ListScope, by writes: [AppliedWrite], sequence: Int64,
                           next: inout [MaterializationKey: ListState], partitionVersions: inout [MaterializationKey: Int64]) {
        var routed: [PartitionKey: [AppliedWrite]] = [:]
        var order: [PartitionKey] = []
        func route(_ write: AppliedWrite, to partition: PartitionKey) {
            if routed[partition] == nil { order.append(partition) }
            routed[partition, default: []].append(write)
        }
        for write in writes where definition.reads(collection: write.collection) {
            let owner = write.record.flatMap { Self.owner(of: $0.value, scope: scope) }
            let previousOwner = write.previous.flatMap { try? JSONParser.parse($0) }.flatMap { Self.owner(of: $0, scope: scope) }
            if let owner { route(write, to: owner) }
            if let previousOwner, previousOwner != owner {
                route(write.asDelete, to: previousOwner)
            }
        }
        for partition in order {
            let key = MaterializationKey(list: definition.name, partition: partition)
            let state = stateToMove(key, next: next, partitionVersions: partitionVersions)
            // Its search results and languages move by themselves (each skips what holds this
            // commit): they may be behind the partition, kept while it was evicted and built
            // again from a later committed state.
            advanceQueries(of: key, by: routed[partition]!, sequence: sequence, next: &next)
            advanceLanguages(of: definition, partition: partition, by: routed[partition]!, sequence: sequence, next: &next,
                             partitionVersions: &partitionVersions)
            // Built from a later committed state than this instance had applied: it holds this commit.
            if let state, state.version >= sequence { continue }
            partitionVersions[key] = sequence
            guard let state = next[key] ?? state else { continue }
            next[key] = state.next(apply(routed[partition]!, to: state, key: key, sequence: sequence), version: sequence)
        }
    }

    /// Resident partitions, other languages and search results, their rows, and evictions since
    /// start, by kind (for metrics).
    var residentStatistics: [(kind: ResidentKind, counts: ResidentCounts)] { cache.statisticsByKind }

    /// The answers kept by every list's current state, in every language, and by the resident
    /// partitions and search results, and the bytes they count for.
    var answerCacheUsage: (entries: Int, bytes: Int) {
        allLists().map(\.answers.usage).reduce(cache.answers.usage) { ($0.entries + $1.entries, $0.bytes + $1.bytes) }
    }
}
