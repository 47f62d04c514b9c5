import Dispatch
import ListModel
import Locking

/// Recent versions of one list (or partition), so `changes` can answer from any of them: a
/// ``ListChangeLog`` (which owns the diff's invariant: every version enters as a ``ListEdit``
/// that recorded its own writes) shared under a lock, with the versions it drops freed off the
/// writer's path.
///
/// Bounds are the log's: at most ``maxVersions`` versions and ``maxChangedRows`` written rows in
/// all, whichever comes first; a `since` from before them answers reload.
final class ListHistory: Sendable {
    static let maxVersions = 1_000

    /// Written rows kept, summed over the versions: ten times `changes`' default `maxChanges`
    /// (a span of more written rows answers reload unless the client raised `maxChanges` that
    /// far). Each version kept holds the row chunks and id-index shards its edit copied, so the
    /// bound is also one on memory: at 100,000, importing 1,000,000 records in batches of 2,500
    /// kept 40 versions — some 400 MB of superseded copies, whose pages were faulted in afresh
    /// batch after batch (page faults were 17% of the import's samples). At 10,000 (4 versions):
    /// 1,000,000 records imported through the API at 91,390 / 96,758 records/s against 77,982 /
    /// 88,172, server CPU 17 / 16 s against 20 / 18 s (two alternating rounds).
    static let maxChangedRows = 10_000

    private let log: Locked<ListChangeLog>

    init(version: Int64, snapshot: ListSnapshot) {
        log = Locked(ListChangeLog(version: version, snapshot: snapshot, maxVersions: Self.maxVersions, maxWrittenRows: Self.maxChangedRows))
    }

    /// An edit from the latest version.
    func edit() -> ListEdit { log.withLock { $0.edit() } }

    /// The latest version.
    var latestVersion: Int64 { log.withLock { $0.latestVersion } }

    /// Adds the version `edit` made. An edit that does not start from the latest version (the
    /// writer serialises edits, so this is not expected) starts the log over at the new version
    /// rather than record a diff that would miss writes.
    func append(version: Int64, _ edit: ListEdit) {
        let dropped = log.withLock { log -> [ListChangeLog.Entry] in
            guard edit.baseVersion == log.latestVersion, version > log.latestVersion else {
                log = ListChangeLog(version: version, snapshot: edit.snapshot, maxVersions: Self.maxVersions,
                                    maxWrittenRows: Self.maxChangedRows)
                return []
            }
            return log.append(version: version, edit)
        }
        // Freeing an old snapshot's unshared parts takes time; do it off the writer's path.
        let count = dropped.count
        guard count > 0 else { return }
        Self.reaper.free(consume dropped, count: count)
    }

    /// What changed from `since` to `target` (see ``ListChangeLog/changes(since:upTo:limit:)``);
    /// nil when the client must reload.
    func changes(since: Int64, upTo target: Int64, limit: Int) -> ListChangeSpan? {
        log.withLock { $0.changes(since: since, upTo: target, limit: limit) }
    }

    private static let reaper = Reaper(label: "sectional.history.reaper")

    /// Versions dropped from every history and not yet freed by the reaper.
    static var pendingFrees: Int { reaper.pendingCount }

    /// Versions kept and the written row ids they name.
    var size: (versions: Int, rows: Int) { log.withLock { ($0.size.versions, $0.size.writtenRows) } }
}
