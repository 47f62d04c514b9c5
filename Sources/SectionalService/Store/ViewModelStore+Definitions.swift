import ListModel
import ListStore

/// Definitions changed while serving: a run-time definition stored with the records (`PUT` /
/// `DELETE …/definition`), and the config file's lists re-read (`SIGHUP`).
///
/// A change runs on the writer thread under the writer's lock, like a record commit: the new
/// list is built from storage first (off the request path; nothing is written if that fails),
/// then the change is stored under the next change number, which becomes the list's version.
/// The list's state, partitions and history are replaced at once, so `changes?since` from
/// before answers reload, and its event streams hear of the new version.
extension ViewModelStore {
    /// What a run-time definition change did.
    public struct DefinitionChange: Sendable {
        /// The change as stored (its revision and change number).
        public let stored: StoredDefinition
        /// Whether the list did not exist before.
        public let created: Bool
    }

    /// What a run-time definition change came to.
    public enum DefinitionOutcome: Sendable {
        /// Stored and served.
        case changed(DefinitionChange)
        /// A removal with no run-time definition to remove: nothing changed.
        case nothingToRemove
        /// The condition did not hold (checked against the stored definition before the list is
        /// built, and again in the store's commit): nothing changed.
        case conditionFailed
    }

    /// Stores `definition` as list `name`'s run-time definition (nil removes it: a config list
    /// falls back to its config definition, a run-time-only list disappears) and serves it, on
    /// the writer thread, when `condition` holds (nil: always). The list is built before the
    /// condition is known, so a change refused by it costs a build.
    public func changeDefinitionLater(_ name: String, to definition: ListDefinition?, if condition: DefinitionCondition? = nil,
                                      completion: @escaping @Sendable (Result<DefinitionOutcome, StoreError>) -> Void) {
        onWriter { [self] in
            do throws(StoreError) {
                let (change, events) = try changeDefinition(name, to: definition, if: condition)
                completion(.success(change))
                if !events.isEmpty { onChange(events) }
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Replaces the config file's lists with `lists` (re-read), on the writer thread; lists
    /// whose definition in force changes are rebuilt at one new version. `completion` gets the
    /// names of those lists.
    public func reloadConfigLater(_ lists: [ListDefinition], completion: @escaping @Sendable (Result<[String], StoreError>) -> Void) {
        onWriter { [self] in
            do throws(StoreError) {
                let (names, events) = try reloadConfig(lists)
                completion(.success(names))
                if !events.isEmpty { onChange(events) }
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Where list `name`'s definition comes from and its revision (0 for the config's), with the
    /// definition; nil when there is no such list.
    public func definitionOrigin(_ name: String) -> (definition: ListDefinition, runtime: Bool, revision: Int64)? {
        catalog.withLock { catalog in
            guard let definition = catalog.definition(name), let origin = catalog.origin(of: name) else { return nil }
            return (definition, origin.runtime, origin.revision)
        }
    }

    /// Fingerprints of the definitions list `name` served before, newest last.
    func retiredFingerprints(_ name: String) -> [UInt64] {
        catalog.withLock { $0.retired[name] ?? [] }
    }

    /// Collections some list with `access: users` reads (their records are private).
    var privateCollections: Set<String> { catalog.withLock { $0.privateCollections } }

    func changeDefinition(_ name: String, to definition: ListDefinition?,
                          if condition: DefinitionCondition?) throws(StoreError) -> (DefinitionOutcome, [VersionEvent]) {
        try writer.withLock { _ throws(StoreError) -> (DefinitionOutcome, [VersionEvent]) in
            let configured = catalog.withLock { $0.config.first { $0.name == name } }
            // Tagged as it is served (``ListCatalog`` serves a list in its first language).
            let expectation = condition?.expectation(configured: configured.map { Localization.base($0).fingerprint }) ?? .any
            // A change the stored definition refuses is answered before the list is built (a
            // build holds the writer, and so every write, for as long as a start takes to build
            // the list); the commit checks again, as another instance may change it meanwhile.
            if expectation != .any {
                let live = try store.storedDefinition(name).flatMap { $0.json == nil ? nil : $0.revision }
                if definition != nil || live != nil, !expectation.holds(live) { return (.conditionFailed, []) }
            }
            let after = (definition ?? configured).map(Localization.base)
            let snapshot = try after.flatMap { definition throws(StoreError) in try build(definition) }
            var json: [UInt8]?
            if let definition {
                var writer = JSONWriter()
                writer.value(definition.source)
                json = writer.bytes
            }
            let stored: StoredDefinition, replaced: Bool
            switch try store.saveDefinition(list: name, json: json, expecting: expectation,
                                            deliveries: after.flatMap(definitionDeliveries)) {
            case .saved(let saved, let wasLive): (stored, replaced) = (saved, wasLive)
            case .nothingToRemove: return (.nothingToRemove, [])
            case .failed: return (.conditionFailed, [])
            }
            // Other instances' commits below this change first. When there were any, the list
            // was built before them: it is built again as another instance follows the change
            // (commits after it may be in storage by now).
            var (events, complete, moved) = catchUpBefore(stored.sequence)
            let wasSkipped = catalog.withLock { $0.skipped.contains(name) }
            if moved {
                do {
                    events += try followDefinition(name, at: stored.sequence)
                } catch {
                    // Stored, but the store could not be read to build it here just now: the
                    // follower applies it from the log, as another instance's change. Not
                    // answered 503 "nothing was changed" (sent again with its If-Match: 412).
                    complete = false
                }
            } else {
                // The catalog first: a reader holding a page token of the old definition finds it retired.
                catalog.withLock { $0.setRuntime(name, definition, revision: stored.revision, at: stored.sequence) }
                events += put(name, snapshot, at: stored.sequence)
            }
            if complete { applied.advance(to: stored.sequence) }
            recordServed(after.map { [$0] } ?? [], removed: after == nil ? [name] : [], at: stored.sequence)
            // Created when neither a run-time definition (as the store saw it in the commit: another
            // instance may have made one just before; not one skipped at start) nor the config's was in force.
            return (.changed(DefinitionChange(stored: stored, created: (!replaced || wasSkipped) && configured == nil)), events)
        }
    }

    func reloadConfig(_ lists: [ListDefinition]) throws(StoreError) -> ([String], [VersionEvent]) {
        try writer.withLock { _ throws(StoreError) -> ([String], [VersionEvent]) in
            var before = catalog.withLock { $0 }
            var next = before
            var changed = next.setConfig(lists)
            guard !changed.isEmpty else {
                catalog.withLock { $0 = next }
                return ([], [])
            }
            if let adopted = try adoptReloaded(changed, of: next) {
                for (name, build) in adopted { next.settle(name, before: before.definition(name), at: build.sequence) }
                catalog.withLock { $0 = next }
                let events = adopted.flatMap { name, build in put(name, build.snapshot, at: build.sequence, version: build.version) }
                return (changed, events)
            }
            var snapshots: [String: ListSnapshot] = [:]
            for name in changed {
                if let definition = next.definition(name), let snapshot = try build(definition) { snapshots[name] = snapshot }
            }
            // The webhooks hear of the lists the reload moves as of a write (recorded with the
            // number). Should the catch-up below follow another instance's definition change
            // and so add lists to those the reload moves, they are told of that change only.
            let sequence = try store.takeSequence(deliveries: changed.compactMap { next.definition($0).flatMap(definitionDeliveries) })
            var (events, complete, moved) = catchUpBefore(sequence)
            if moved {
                // The catch-up may have followed a definition change (another instance's
                // `PUT …/definition`): the reload goes on from the catalog as it left it.
                before = catalog.withLock { $0 }
                next = before
                changed = Array(Set(changed).union(next.setConfig(lists))).sorted()
                snapshots = [:]
                for name in changed {
                    if let definition = next.definition(name), let snapshot = try build(definition) { snapshots[name] = snapshot }
                }
            }
            for name in changed { next.settle(name, before: before.definition(name), at: sequence) }
            catalog.withLock { $0 = next }
            for name in changed { events += put(name, snapshots[name], at: sequence) }
            if complete { applied.advance(to: sequence) }
            recordServed(changed.compactMap { next.definition($0) }, removed: changed.filter { next.definition($0) == nil }, at: sequence)
            return (changed, events)
        }
    }

    /// On a shared store, when another instance's reload of the same file already moved every
    /// list among `changed` to its definition in `next` (the store records each as served from
    /// that reload's change number): each built as a follower builds a logged definition change,
    /// from one committed state, at the later of that number and the last commit to its
    /// collections — the version the other instance serves it at — to be served from that
    /// number rather than from one of this instance's own. Each instance reloading the same file
    /// moved the list to a version of its own, and a list of literal rows stayed apart until a
    /// restart. Nil (a number of its own for them all, as before) unless every list qualifies:
    /// one that is the same for everyone, recorded with this definition at a number past the one
    /// it changed at here, read at a version past the one this instance serves it at (else one
    /// version would have two bodies here). All or none, so no catch-up to a number of its own
    /// runs between a list's read and its publication (it moved the old state past the read).
    /// Two reloads at the same moment (neither recorded yet) both take their own. Under the
    /// writer's lock.
    private func adoptReloaded(_ changed: [String], of next: ListCatalog) throws(StoreError)
        -> [String: (snapshot: ListSnapshot, sequence: Int64, version: Int64)]? {
        guard changeLog != nil else { return nil }
        let served = try store.servedDefinitions()
        var adopted: [String: (snapshot: ListSnapshot, sequence: Int64, version: Int64)] = [:]
        for name in changed {
            guard let definition = next.definition(name), definition.scope == nil, let was = served[name],
                  was.fingerprint == definition.fingerprint, was.sequence > (next.changed[name] ?? 0) else { return nil }
            let base = Localization.base(definition)
            let (snapshot, version) = try store.readConsistently { () throws(StoreError) in
                try rowsAndVersion(base, changedAt: was.sequence)
            }
            guard version > cache.peek(MaterializationKey(list: name, partition: nil))?.version ?? 0 else { return nil }
            adopted[name] = (snapshot, was.sequence, version)
        }
        return adopted
    }

    /// The rows of list `definition` (in its first language, the same for everyone) as storage
    /// holds them now, and the version they give: the later of `sequence` (its definition's
    /// change number) and the last commit to its collections. Inside the caller's
    /// ``RecordStore/readConsistently(_:)``, as a follower and an adopting reload build a list.
    private func rowsAndVersion(_ definition: ListDefinition, changedAt sequence: Int64) throws(StoreError) -> (ListSnapshot, Int64) {
        let sequences = try store.collectionSequences()
        return (try buildRows(definition), max(definition.sources.compactMap { sequences[$0] }.max() ?? 0, sequence))
    }

    /// The list `definition` gives, built from storage; nil for a per-user list (its partitions
    /// are built on read; this prepares the index they need). Under the writer's lock.
    private func build(_ definition: ListDefinition) throws(StoreError) -> ListSnapshot? {
        if let scope = definition.scope {
            for source in definition.sources { try store.prepareField(scope.field, in: source) }
            return nil
        }
        return try buildRows(definition)
    }

    /// The rows of a list that is the same for everyone, read from storage.
    private func buildRows(_ definition: ListDefinition) throws(StoreError) -> ListSnapshot {
        var pages: [PageRows] = []
        for source in definition.sources {
            pages += try Self.readAll(in: source, from: store, log: log) { PageRows(definition: definition, collection: source, records: $0[...]) }
        }
        return ListSnapshot.build(definition: definition, pages: pages, parallelism: .cores)
    }

    /// Serves `snapshot` as list `name` from `sequence` on, in place of everything held for it
    /// (nil: a per-user list, or none), and starts making its search corpus in the background
    /// (if it has `search` or `filters`); returns the events to send.
    ///
    /// Duplicate rows the new snapshot drops beyond those the list dropped before are counted,
    /// as a write's are, so the counter reads what a start on the same data would; a change that
    /// removes duplicates counts nothing (a counter never goes down).
    /// `version`: the snapshot's version when it was read after `sequence` (default: `sequence`).
    private func put(_ name: String, _ snapshot: ListSnapshot?, at sequence: Int64, version: Int64? = nil) -> [VersionEvent] {
        let version = version ?? sequence
        if let snapshot {
            let before = cache.peek(MaterializationKey(list: name, partition: nil))?.snapshot.duplicateRowCount ?? 0
            metrics.recordDuplicates(list: name, count: snapshot.duplicateRowCount - before)
            logDuplicates(list: name, count: snapshot.duplicateRowCount)
        }
        corpora.withLock { $0.forget(name) }
        if snapshot != nil { prepareCorporaLater([name]) }
        cache.replaceList(name, with: snapshot.map { ListState(snapshot: $0, version: version) }, epoch: sequence)
        return [VersionEvent(stream: name, list: name, version: version, endsStreams: true)]
    }

    /// A run-time definition change another instance made (the change log's entry at
    /// `sequence`), or one this instance made after others' commits it had not applied: the list
    /// is built as a start would build it, from one committed state of the store (`REPEATABLE
    /// READ`) — the definition stored then, the records, and the version they give (the later
    /// of that definition's change number and the last commit to the list's collections).
    /// Storage is usually past `sequence` by then (other instances keep committing), and no
    /// state of it at `sequence` can be read back: so the list moves straight from its old
    /// definition at a version below `sequence` to the new one at the version read, and the
    /// log's entries up to that version are skipped for it (they are in it), as a partition
    /// built ahead skips them. Every instance thus serves one body per version, and never a definition at a
    /// version before it came into force; `changes` from a version the jump passed answers
    /// reload. A change already in force (a later one was read) is skipped. Under the writer's lock.
    ///
    /// Cost: one read of the list's collections, as at start. Failure: a store error is thrown
    /// (the follower stops at this entry and tries again); a stored definition that does not
    /// decode is logged and skipped.
    func followDefinition(_ name: String, at sequence: Int64) throws(StoreError) -> [VersionEvent] {
        if let changed = catalog.withLock({ $0.changed[name] }), changed >= sequence { return [] }
        let configured = catalog.withLock { $0.config.first { $0.name == name } }
        /// What one committed state holds: the stored change, its definition, and (for a list
        /// that is the same for everyone) its rows and version.
        typealias Read = (stored: StoredDefinition, definition: ListDefinition?, snapshot: ListSnapshot?, version: Int64)
        let read = try store.readConsistently { () throws(StoreError) -> Read? in
            guard let stored = try store.storedDefinition(name), stored.sequence >= sequence else { return nil }
            var definition: ListDefinition?
            if let json = stored.json {
                do {
                    definition = try ListDefinitions.decode(name: name, try JSONParser.parse(json), path: "$", zones: TimeZones.offsets)
                } catch {
                    log.error("skipping a stored run-time definition that does not decode", ["list": .text(name), "error": .text("\(error)")])
                    return nil
                }
            }
            guard let served = (definition ?? configured).map(Localization.base), served.scope == nil else {
                return (stored, definition, nil, stored.sequence)
            }
            let (snapshot, version) = try rowsAndVersion(served, changedAt: stored.sequence)
            return (stored, definition, snapshot, version)
        }
        guard let read else { return [] }
        if let served = read.definition ?? configured, let scope = served.scope {
            for source in served.sources { try store.prepareField(scope.field, in: source) }
        }
        catalog.withLock { $0.setRuntime(name, read.definition, revision: read.stored.revision, at: read.stored.sequence) }
        return put(name, read.snapshot, at: read.stored.sequence, version: read.version)
    }

    /// After the change log's definition change `change` is followed: when the list's change in
    /// force is a later one (read when this instance got to `change`, or before), the logged
    /// definition was never served here, though another instance served it and wrote page tokens
    /// under it. It is counted among the list's retired definitions, so those tokens are told to
    /// reload, as tokens of a definition this instance served are. Under the writer's lock.
    ///
    /// Cost: a decode of the logged definition, only when it was passed over. Choices: a logged
    /// removal passes over the config file's definition (none for a list only defined at run
    /// time); a logged definition that does not decode (a later release's) is not counted.
    func retirePassedOver(_ change: LoggedChange) {
        let name = change.id
        guard let changed = catalog.withLock({ $0.changed[name] }), changed > change.sequence else { return }
        let passed: ListDefinition?
        if let json = change.json {
            passed = try? ListDefinitions.decode(name: name, JSONParser.parse(json), path: "$", zones: TimeZones.offsets)
        } else {
            passed = catalog.withLock { catalog in catalog.config.first { $0.name == name } }
        }
        guard let passed else { return }
        catalog.withLock { $0.retire(name, Localization.base(passed)) }
    }
}
