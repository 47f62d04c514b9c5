import Dispatch
import ListModel
import Synchronization

/// Recent versions of one list (or partition), so `changes` can answer from any of them: a
/// ``ListChangeLog`` (which owns the diff's invariant: every version enters as a ``ListEdit``
/// that recorded its own writes) shared under a lock, with the versions it drops freed off the
/// writer's path.
///
/// Bounds are the log's: at most ``maxVersions`` versions and ``maxChangedRows`` written rows in
/// all, whichever comes first; a `since` from before them answers reload.
final class ListHistory: Sendable {
    static let maxVersions = 1_000
    static let maxChangedRows = 100_000

    private let log: Mutex<ListChangeLog>

    init(version: Int64, snapshot: ListSnapshot) {
        log = Mutex(ListChangeLog(version: version, snapshot: snapshot, maxVersions: Self.maxVersions, maxWrittenRows: Self.maxChangedRows))
    }

    /// An edit from the latest version.
    func edit() -> ListEdit { log.withLock { $0.edit() } }

    /// The latest version.
    var latestVersion: Int64 { log.withLock { $0.latest.version } }

    /// Adds the version `edit` made. An edit that does not start from the latest version (the
    /// writer serialises edits, so this is not expected) starts the log over at the new version
    /// rather than record a diff that would miss writes.
    func append(version: Int64, _ edit: ListEdit) {
        let dropped = log.withLock { log -> [ListChangeLog.Entry] in
            guard edit.baseVersion == log.latest.version, version > log.latest.version else {
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
