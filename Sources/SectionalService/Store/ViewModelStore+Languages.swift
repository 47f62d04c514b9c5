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
    public func localized(_ base: ListState, language: String) throws(StoreError) -> ListState {
        guard language != base.definition.language else { return base }
        let key = MaterializationKey(list: base.name, partition: base.partition, language: language)
        if let state = cache.read(key) { return state }
        while true {
            let (stored, _, version, epoch, definition) = try writer.withLock {
                _ throws(StoreError) -> ([String: [StoredRecord]], Int64?, Int64, Int64?, ListDefinition) in
                let seen = cache.writtenVersion(of: key)
                let epoch = cache.epoch(of: base.name)
                let definition = catalog.withLock { $0.definition(base.name) } ?? base.definition
                var stored: [String: [StoredRecord]] = [:]
                var version: Int64
                if let partition = base.partition, let scope = definition.scope {
                    // The partition's version, as a build of it in the first language would find it.
                    version = cache.peek(MaterializationKey(list: base.name, partition: partition))?.version ?? base.version
                    for source in definition.sources where partition != .nobody {
                        stored[source] = try store.records(in: source, field: scope.field, equals: partition.value)
                    }
                    if let seen { version = max(version, seen) }
                } else {
                    version = cache.peek(MaterializationKey(list: base.name, partition: nil))?.version ?? base.version
                    for source in definition.sources { stored[source] = try store.allRecords(in: source) }
                }
                return (stored, seen, version, epoch, definition)
            }
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
            let state = ListState(snapshot: snapshot, version: version, partition: base.partition, language: language)
            if let installed = cache.install(key, state: state, epoch: epoch) {
                metrics.recordLanguageBuild(language: language)
                return installed
            }
        }
    }

    /// Moves every language of a list (or of one partition) with a group of writes: each takes
    /// the commit's version; resident ones also take the changes.
    func advanceLanguages(of definition: ListDefinition, partition: PartitionKey?, by writes: [AppliedWrite], sequence: Int64,
                          next: inout [MaterializationKey: ListState], partitionVersions: inout [MaterializationKey: Int64]) {
        for language in definition.languages where language != definition.language {
            let key = MaterializationKey(list: definition.name, partition: partition, language: language)
            partitionVersions[key] = sequence
            advanceQueries(of: key, by: writes, sequence: sequence, next: &next)
            guard let state = next[key] ?? cache.peek(key) else { continue }
            next[key] = state.next(apply(writes, to: state, key: key, sequence: sequence), version: sequence)
        }
    }
}
