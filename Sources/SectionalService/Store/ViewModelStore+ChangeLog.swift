import ListModel
import ListStore

/// Following other instances: the change log of a shared store (PostgreSQL) read after the last
/// version applied, and applied strictly in version order through the path this instance's own
/// writes take (``advance(by:result:next:partitionVersions:)``), so instances at the same
/// version hold the same snapshots, histories, partition versions and entity tags.
extension ViewModelStore {
    /// Most logged writes read at once.
    static let changeLogBatch = 10_000

    /// Where a follower stands after ``catchUp()``.
    enum CatchUp: Equatable {
        /// Everything logged was applied, up to this version.
        case current(Int64)
        /// The next version is not in the log yet (a gap: it will come) — try again shortly.
        case waiting(Int64)
        /// The log no longer holds the next version (this instance fell too far behind): only a
        /// restart, which loads the records afresh, brings it back.
        case tooFarBehind(Int64)
    }

    /// The store's change log, when other processes write to the store too.
    var changeLog: ChangeLog? { store as? ChangeLog }

    /// Has `handler` told (on the writer's path) the ids of views changed by another instance —
    /// or by this one, as they come back through the log.
    public func followViews(_ handler: @escaping @Sendable ([String]) -> Void) {
        viewFollower.withLock { $0 = handler }
    }

    func viewsChanged(_ ids: [String]) {
        let handler = viewFollower.withLock { $0 }
        handler(ids)
    }

    /// Applies everything the change log holds after the last applied version, batch by batch,
    /// off any request's path (the follower's thread). Reads happen outside the writer's lock;
    /// each batch is applied under it from the version applied then (a local commit may have
    /// applied part of it meanwhile), published at once, and its events sent.
    func catchUp() throws(StoreError) -> CatchUp {
        guard let log = changeLog else { return .current(applied.current) }
        while true {
            let from = applied.current
            let changes = try log.changes(after: from, limit: Self.changeLogBatch)
            guard let firstLogged = changes.first?.sequence else {
                viewsChanged([])
                return .current(from)
            }
            if firstLogged > from + 1 {
                // Commits are visible in version order, so a gap means the log was cut.
                if let oldest = try log.oldestLoggedChange(), oldest > from + 1 { return .tooFarBehind(from) }
                return .waiting(from)
            }
            let (events, reached) = writer.withLock { _ -> ([VersionEvent], Int64) in
                var next: [MaterializationKey: ListState] = [:]
                var partitionVersions: [MaterializationKey: Int64] = [:]
                var views: [String] = []
                var events: [VersionEvent] = []
                let reached = applyLocked(changes, through: .max, next: &next, partitionVersions: &partitionVersions, views: &views,
                                          events: &events)
                events += publish(next, partitionVersions: partitionVersions)
                // Told even of none: views it could not read before are read again. Before the
                // version moves, so a read waiting for it (`minVersion`) finds the views as of it.
                viewsChanged(views)
                applied.advance(to: reached)
                return (events, reached)
            }
            if !events.isEmpty { onChange(events) }
            if reached == from { return .waiting(from) }
        }
    }

    /// Under the writer's lock: applies the log from the version applied now through `target`,
    /// reading it as needed; returns the version reached (less than `target` when the log could
    /// not be read). Publishing and moving ``applied`` are the caller's.
    func catchUpLocked(through target: Int64, next: inout [MaterializationKey: ListState],
                       partitionVersions: inout [MaterializationKey: Int64], views: inout [String],
                       events: inout [VersionEvent]) -> Int64 {
        var reached = applied.current
        guard let log = changeLog else { return reached }
        while reached < target {
            guard let changes = try? log.changes(after: reached, limit: Self.changeLogBatch), !changes.isEmpty else { return reached }
            let before = reached
            reached = applyLocked(changes, through: target, next: &next, partitionVersions: &partitionVersions, views: &views,
                                  events: &events, from: reached)
            if reached == before { return reached }
        }
        return reached
    }

    /// Applies logged commits in version order, from the one after `from` (default: the version
    /// applied now) up to `target`, stopping at the first gap; returns the last version applied.
    /// Commits at or below `from` are skipped (already applied).
    func applyLocked(_ changes: [LoggedChange], through target: Int64, next: inout [MaterializationKey: ListState],
                     partitionVersions: inout [MaterializationKey: Int64], views: inout [String], events: inout [VersionEvent],
                     from: Int64? = nil) -> Int64 {
        var reached = from ?? applied.current
        var index = changes.startIndex
        while index < changes.endIndex {
            let sequence = changes[index].sequence
            var end = index
            while end < changes.endIndex, changes[end].sequence == sequence { end += 1 }
            defer { index = end }
            if sequence <= reached { continue }
            guard sequence == reached + 1, sequence <= target else { break }
            var writes: [Write] = []
            var previous: [[UInt8]?] = []
            if let change = changes[index..<end].first(where: \.isDefinition) {
                // A definition change replaces what is held for its list: what this batch applied
                // so far is published first, so it cannot land on the list's new state.
                events += publish(next, partitionVersions: partitionVersions)
                next = [:]
                partitionVersions = [:]
                // And the views changed so far, before the version moves (see ``catchUp()``).
                if !views.isEmpty {
                    viewsChanged(views)
                    views = []
                }
                applied.advance(to: reached)
                do {
                    if !change.id.isEmpty {
                        events += try followDefinition(change.id, at: sequence)
                        retirePassedOver(change)
                    }
                } catch {
                    self.log.error("cannot follow a definition change", ["list": .text(change.id), "error": .text("\(error)")])
                    break
                }
                reached = sequence
                continue
            }
            for change in changes[index..<end] {
                if change.isView {
                    views.append(change.id)
                    continue
                }
                guard let json = change.json else {
                    writes.append(.delete(collection: change.collection, id: change.id))
                    previous.append(change.previous)
                    continue
                }
                guard let value = try? JSONParser.parse(json), let object = value.objectValue else {
                    self.log.error("skipping an unreadable logged record", ["collection": .text(change.collection), "id": .text(change.id),
                                                                            "version": .number(Double(sequence))])
                    continue
                }
                writes.append(.upsert(collection: change.collection, record: IncomingRecord(id: change.id, object: object)))
                previous.append(change.previous)
            }
            if !writes.isEmpty {
                let result = CommitResult(sequence: sequence, existed: Array(repeating: true, count: writes.count),
                                          changedAnything: true, previous: previous)
                advance(by: writes, result: result, next: &next, partitionVersions: &partitionVersions)
            }
            reached = sequence
        }
        return reached
    }

    /// Under the writer's lock, before a change numbered `sequence` that this instance made is
    /// served: applies (and publishes) the versions below it that other instances made and this
    /// one has not applied. Returns their events, whether all were applied (else `applied` must
    /// stay below `sequence`; the follower brings the rest), and whether there were any.
    func catchUpBefore(_ sequence: Int64) -> (events: [VersionEvent], complete: Bool, moved: Bool) {
        let start = applied.current
        guard start < sequence - 1 else { return ([], true, false) }
        var next: [MaterializationKey: ListState] = [:]
        var partitionVersions: [MaterializationKey: Int64] = [:]
        var views: [String] = []
        var events: [VersionEvent] = []
        let reached = catchUpLocked(through: sequence - 1, next: &next, partitionVersions: &partitionVersions, views: &views, events: &events)
        events += publish(next, partitionVersions: partitionVersions)
        if !views.isEmpty { viewsChanged(views) }
        applied.advance(to: reached)
        return (events, reached >= sequence - 1, true)
    }
}
