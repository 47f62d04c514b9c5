import Dispatch
import HTTPServer
import ListModel
import ListStore

/// How a commit moves the lists: each group of writes, as the lists see it, applied to every list
/// (and resident partition, language and search result) that reads its collections, and recorded
/// in their histories. Runs on the writer's thread, under the writer's lock.
extension ViewModelStore {
    /// One write of a commit as the lists see it.
    struct AppliedWrite: Sendable {
        let collection: String
        let id: String
        /// The record written, object and JSON text (nil for a delete).
        let record: IncomingRecord?
        /// The record's JSON before the write, when a per-user list reads its collection.
        let previous: [UInt8]?

        /// What the model applies: the record, or the delete of `id`.
        var change: RecordChange { record.map { .upsert($0.value) } ?? .delete(id: id) }

        /// The delete of this write's record (for a list or partition the record leaves).
        var asDelete: AppliedWrite { AppliedWrite(collection: collection, id: id, record: nil, previous: nil) }
    }

    /// Derives the next state of every list (and resident partition) a group of writes changes.
    /// `ahead` holds the lists' edits when they were made while the store committed.
    func advance(by writes: [Write], result: CommitResult, next: inout [MaterializationKey: ListState],
                 partitionVersions: inout [MaterializationKey: Int64], ahead: EditsAhead? = nil) {
        var applied: [AppliedWrite] = []
        applied.reserveCapacity(writes.count)
        for (index, write) in writes.enumerated() {
            switch write {
            case .upsert(let collection, let record):
                applied.append(AppliedWrite(collection: collection, id: record.id, record: record, previous: result.previous[index]))
            case .delete(let collection, let id):
                guard result.existed[index] else { continue }
                applied.append(AppliedWrite(collection: collection, id: id, record: nil,
                                            previous: result.previous[index]))
            case .patch:
                preconditionFailure("patches are merged before the commit")
            }
        }
        for definition in definitions where applied.contains(where: { definition.reads(collection: $0.collection) }) {
            if let scope = definition.scope {
                advancePartitions(of: definition, scope: scope, by: applied, sequence: result.sequence,
                                  next: &next, partitionVersions: &partitionVersions)
                continue
            }
            let key = MaterializationKey(list: definition.name, partition: nil)
            guard let state = next[key] ?? cache.peek(key) else { continue }
            // Built from a later committed state than this instance had applied (a definition
            // change followed: ``followDefinition(_:at:)``): it holds this commit.
            if state.version >= result.sequence { continue }
            let snapshot: ListSnapshot
            if applied.count >= Self.concurrentCorpusWrites {
                // The search corpus on another thread while the list moves on this one, its
                // large batches on every core (inside `concurrentPerform`, as the two were
                // before, libdispatch would run the list's parts one after another).
                let writes = applied, corpus = DispatchGroup()
                Self.corpusQueue.async(group: corpus) {
                    ThreadPinning.freeCallingThread()
                    self.advanceCorpus(of: definition, by: writes)
                }
                snapshot = apply(applied, to: state, key: key, sequence: result.sequence, parallelism: .cores, ahead: ahead)
                corpus.wait()
            } else {
                snapshot = apply(applied, to: state, key: key, sequence: result.sequence)
                advanceCorpus(of: definition, by: applied)
            }
            if snapshot.duplicateRowCount != state.snapshot.duplicateRowCount {
                metrics.recordDuplicates(list: definition.name, count: snapshot.duplicateRowCount - state.snapshot.duplicateRowCount)
                logDuplicates(list: definition.name, count: snapshot.duplicateRowCount)
            }
            next[key] = state.next(snapshot, version: result.sequence)
            advanceQueries(of: key, by: applied, sequence: result.sequence, next: &next)
            advanceLanguages(of: definition, partition: nil, by: applied, sequence: result.sequence, next: &next, partitionVersions: &partitionVersions)
        }
    }

    /// The state of partition or language `key` a commit moves: the one an earlier commit of
    /// the same batch (a commit's groups, the commits the writer coalesced, or the change log's
    /// commits applied at once) moved, in `next`; else the resident one — but not one a reader
    /// installed after an earlier commit of the batch found `key` absent and gave it a version
    /// (in `partitionVersions`, published only with the batch). That reader read storage before
    /// the batch, and its install was checked against the versions published then, so its state
    /// lacks that commit: it is not moved, and
    /// ``MaterializationCache/publish(_:partitionVersions:)`` drops it, to be built again on its
    /// next read. Under the writer's lock; costs a dictionary look-up.
    func stateToMove(_ key: MaterializationKey, next: [MaterializationKey: ListState],
                     partitionVersions: [MaterializationKey: Int64]) -> ListState? {
        if let moved = next[key] { return moved }
        guard let state = cache.peek(key) else { return nil }
        if let given = partitionVersions[key], state.version < given { return nil }
        return state
    }

    /// Groups of at least this many writes move a list's search corpus on a second thread while
    /// the list itself moves (both before the list is published, as one after the other did).
    /// Measured with `make bench-service`'s import (batches of 2,500 into a list growing to
    /// 1,000,000 rows): the corpus was 15% of the writer's time; a single write would pay more
    /// for the hand-over than it saves.
    static let concurrentCorpusWrites = 256

    /// Where a large group moves the search corpus while the writer waits: a queue of its own (see
    /// ``EditsAhead``: a global queue's work may wait for a thread).
    static let corpusQueue = DispatchQueue(label: "sectional.corpus", qos: .userInitiated)

    /// `state`'s snapshot with `writes` applied (each collection's in order; a large batch's
    /// parts as `parallelism` runs them), recorded in the history of `key` under `sequence`.
    /// No writes (a search result none of them enters or leaves) change nothing and record no
    /// version: `changes` from a version between two kept ones starts from the one before it,
    /// which shows the same rows.
    func apply(_ writes: [AppliedWrite], to state: ListState, key: MaterializationKey, sequence: Int64,
               parallelism: Parallelism = .serial, ahead: EditsAhead? = nil) -> ListSnapshot {
        // Taken also when no write changes it: `publish` then knows the entry the state is for.
        guard let history = cache.historyToEdit(key), !writes.isEmpty else { return state.snapshot }
        let edit = ahead?.take(key, from: history) ?? Self.edit(history, by: writes, parallelism: parallelism)
        history.append(version: sequence, edit)
        return edit.snapshot
    }

    /// An edit from `history`'s latest version with `writes` applied, each collection's in order.
    static func edit(_ history: ListHistory, by writes: [AppliedWrite], parallelism: Parallelism) -> ListEdit {
        var edit = history.edit()
        var collections: [String] = []
        for write in writes where !collections.contains(write.collection) { collections.append(write.collection) }
        for collection in collections {
            edit.apply(writes.filter { $0.collection == collection }.map(\.change), collection: collection, parallelism: parallelism)
        }
        return edit
    }

    /// Starts making the edits a commit of `groups` will apply to the lists that are the same
    /// for everyone, on another thread while the store commits (see ``EditsAhead``): for one
    /// group of at least ``concurrentCorpusWrites`` upserts, the writes whose model work is
    /// worth the hand-over and whose effect on a list does not depend on what the commit finds
    /// (a delete's does: whether the record existed). Nil otherwise. Per-user lists, languages
    /// and searches are moved after the commit, as before.
    ///
    /// Measured with `make bench-service`'s import (batches of 2,500 into a list growing to
    /// 1,000,000 rows, one batch in flight): SQLite's commit is mostly a wait on `fdatasync`,
    /// 3 of the import's 14 seconds, with the cores idle.
    func editAhead(_ groups: [(writes: [Write], conditions: [WriteCondition])]) -> EditsAhead? {
        guard groups.count == 1, groups[0].writes.count >= Self.concurrentCorpusWrites else { return nil }
        var applied: [AppliedWrite] = []
        applied.reserveCapacity(groups[0].writes.count)
        for write in groups[0].writes {
            guard case .upsert(let collection, let record) = write else { return nil }
            applied.append(AppliedWrite(collection: collection, id: record.id, record: record, previous: nil))
        }
        let histories = definitions.compactMap { definition -> (MaterializationKey, ListHistory)? in
            guard definition.scope == nil, applied.contains(where: { definition.reads(collection: $0.collection) }) else { return nil }
            let key = MaterializationKey(list: definition.name, partition: nil)
            return cache.history(key).map { (key, $0) }
        }
        guard !histories.isEmpty else { return nil }
        let writes = applied
        return EditsAhead {
            var edits: [MaterializationKey: EditsAhead.Made] = [:]
            for (key, history) in histories { edits[key] = (history, Self.edit(history, by: writes, parallelism: .cores)) }
            return edits
        }
    }
}
