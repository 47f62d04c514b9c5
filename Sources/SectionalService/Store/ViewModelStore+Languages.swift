import ListModel
import ListStore

/// A list's other languages: each language's rows (of the list, or of one user's partition) are
/// a materialization of their own, built from storage on first read, kept current by every
/// write while in memory, and evicted least-recently-read under the same `maxResidentRows`
/// budget as partitions. They move with the list or partition they translate: same versions,
/// their own `changes` history, no events of their own (the list's stream announces them).
extension ViewModelStore {
    /// `base` (a list, or a user's partition, in its first language) in `language`, one of its
    /// languages: from memory, or built from storage (as a partition is; see ``partition(_:of:)``).
    ///
    /// Version: the records are read under the writer's lock, so no write of this process falls
    /// between them and the version of `base` as applied. A partition's records are read with
    /// its version from one committed state (as ``partition(_:of:)`` reads them), and on a store
    /// other instances share a list's with the collections' change numbers: that may be ahead of
    /// what this instance applied, and the language then takes that later version, the log's
    /// commits up to it skipped for it (they are in it), so every instance shows one body per
    /// version.
    /// When that state holds a change of the list's definition this instance has not followed
    /// yet, the change is followed first and the records read again, as for a partition.
    ///
    /// Nil when the list's definition changed after `base` was read (the request is to be read
    /// again from the start, its caller's access checked against the new definition): built
    /// here, it was the rows of a definition the caller was never checked against — a list made
    /// private, or per-user, answered an anonymous read with every user's records.
    ///
    /// Cost: one read of the list's collections (a partition: one indexed read per collection,
    /// and its version's) and a build; when a write moved the list while it was built, a second read and build,
    /// made under the writer's lock (writes wait for it); on a shared store, also a read of the
    /// collections' change numbers and of the stored run-time definitions' change numbers.
    public func localized(_ base: ListState, language: String) throws(StoreError) -> ListState? {
        guard language != base.definition.language else { return base }
        let key = MaterializationKey(list: base.name, partition: base.partition, language: language)
        if let state = cache.read(key) { return state.servedFingerprint == base.servedFingerprint ? state : nil }
        // Whether to read versions and look for a definition change not followed: only another
        // instance, sharing the store, can be ahead; and once (one that does not decode is skipped).
        let shared = changeLog != nil
        var follow = shared
        // After an install refused (a write moved the list while it was built outside the
        // writer's lock), the build is made under it: no write can then come between the read
        // and the install. Outside it again and again, a list written more often than it takes to
        // build was never installed, and the read never answered.
        var holdWriter = false
        func build(_ stored: [String: [StoredRecord]], version: Int64, definition: ListDefinition) throws(StoreError) -> ListState {
            var records: [String: [JSONValue]] = [:]
            for (source, list) in stored {
                var parsed = try Self.parseAll(list, collection: source, log: log)
                if let partition = base.partition, let scope = definition.scope {
                    parsed = parsed.filter { Self.owner(of: $0, scope: scope) == partition }
                }
                records[source] = parsed
            }
            let localized = definition.localized(language, formats: Localization.formats(for: language))
            let snapshot = ListSnapshot.build(definition: localized, records: records, parallelism: .cores)
            return ListState(snapshot: snapshot, version: version, partition: base.partition, language: language,
                             served: definition.fingerprint)
        }
        return try cache.building { () throws(StoreError) -> ListState? in
            while true {
                var followed: [VersionEvent] = []
                var changed = false
                var builtHolding: ListState?
                let read = try writer.withLock {
                    _ throws(StoreError) -> ([String: [StoredRecord]], Int64, Int64?, ListDefinition)? in
                    let epoch = cache.epoch(of: base.name)
                    let (found, changedAt) = catalog.withLock { ($0.definition(base.name), $0.changed[base.name] ?? 0) }
                    // A removed list's last readers keep the definition they had.
                    let definition = found ?? base.definition
                    guard definition.fingerprint == base.servedFingerprint else {
                        changed = true
                        return nil
                    }
                    let partition = base.partition.flatMap { partition in definition.scope.map { (partition, $0) } }
                    // The version of what this instance applied, as a build in the first language would
                    // find it (a partition's, at least the one stored with its records).
                    let version = cache.peek(MaterializationKey(list: base.name, partition: partition?.0))?.version ?? base.version
                    let (stored, readVersion, unfollowed) = try store.readConsistently {
                        () throws(StoreError) -> ([String: [StoredRecord]], Int64?, Int64?) in
                        if follow, let change = try store.storedDefinition(base.name)?.sequence, change > changedAt {
                            return ([:], nil, change)
                        }
                        if let (partition, scope) = partition {
                            let (stored, version) = try readPartition(partition, scope: scope, sources: definition.sources)
                            return (stored, version, nil)
                        }
                        var stored: [String: [StoredRecord]] = [:]
                        for source in definition.sources { stored[source] = try store.allRecords(in: source) }
                        // On a shared store, the version of what was read (it may be ahead).
                        let sequences = shared ? try store.collectionSequences() : [:]
                        return (stored, definition.sources.compactMap { sequences[$0] }.max(), nil)
                    }
                    if let unfollowed {
                        follow = false
                        followed = try followDefinition(base.name, at: unfollowed)
                        return nil
                    }
                    if holdWriter {
                        let state = try build(stored, version: max(version, readVersion ?? 0), definition: definition)
                        // Installed unless the definition changed since (its epoch): then served as read.
                        builtHolding = cache.install(key, state: state, epoch: epoch) ?? state
                    }
                    return (stored, max(version, readVersion ?? 0), epoch, definition)
                }
                if let builtHolding {
                    metrics.recordLanguageBuild(language: language)
                    return builtHolding
                }
                guard let (stored, version, epoch, definition) = read else {
                    if !followed.isEmpty { onChange(followed) }
                    if changed { return nil }
                    continue
                }
                if let installed = cache.install(key, state: try build(stored, version: version, definition: definition), epoch: epoch) {
                    metrics.recordLanguageBuild(language: language)
                    return installed
                }
                holdWriter = true
            }
        }
    }

    /// Moves every language of a list (or of one partition) with a group of writes: each takes
    /// the commit's version; resident ones also take the changes — but one read from a committed
    /// state at or past the commit (see ``localized(_:language:)``) holds it already, and one
    /// installed during the batch without an earlier commit of it is dropped (``stateToMove``).
    func advanceLanguages(of definition: ListDefinition, partition: PartitionKey?, by writes: [AppliedWrite], sequence: Int64,
                          next: inout [MaterializationKey: ListState], partitionVersions: inout [MaterializationKey: Int64]) {
        for language in definition.languages where language != definition.language {
            let key = MaterializationKey(list: definition.name, partition: partition, language: language)
            let state = stateToMove(key, next: next, partitionVersions: partitionVersions)
            // Its search results move by themselves: they may be behind it (see ``advancePartitions``).
            advanceQueries(of: key, by: writes, sequence: sequence, next: &next)
            // Read from a later committed state than this instance had applied: it holds this commit.
            if let state, state.version >= sequence { continue }
            partitionVersions[key] = sequence
            guard let state else { continue }
            next[key] = state.next(apply(writes, to: state, key: key, sequence: sequence), version: sequence)
        }
    }
}
