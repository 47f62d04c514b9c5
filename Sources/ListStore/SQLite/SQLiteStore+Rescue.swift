import CSQLite
import Foundation

/// What the store does when its database file is deleted or replaced under it, and when a new
/// one is made where that happened.
extension SQLiteStore {
    /// The database file was deleted or replaced under the store, which still sees it through
    /// its open connections: every acknowledged write is there, and would be gone at the next
    /// start, which opens whatever is at the path. So it is copied, once, to
    /// `PATH.rescued-SECONDS` (the folder made again if it went too), a whole copy as `backup`
    /// makes, and this store's write-ahead log is set aside beside the copy (`….stale-wal`,
    /// `….stale-shm`): left at `PATH-wal`, the next start would apply it to whatever file is then
    /// at `PATH` (a file moved there lost its contents to it). Returns what to tell the operator
    /// the first time; nil after.
    ///
    /// A copy that fails (most often for room: the deleted file's blocks stay taken while the
    /// store holds it open, so a copy needs as much again) is not tried on every refused write,
    /// but again at a graceful stop (`again`): once room is made, the stop saves what a failed
    /// first try would have lost for good.
    func rescue(_ connection: SQLiteConnection, again: Bool = false) -> String? {
        // Callers hold the write lock, so no two tries overlap.
        let state = rescued.withLock { $0 }
        guard state == .notYet || (again && state == .failed) else { return nil }
        let target = "\(path).rescued-\(time(nil))"
        do {
            let folder = (target as NSString).deletingLastPathComponent
            if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            let saved = try SQLiteBackup.copy(connection, toPath: target)
            rescued.withLock { $0 = .done }
            let setAside = setAsideLog(beside: target)
            return """
                every write up to change \(saved.sequence) was saved to \(target)\(setAside): stop the server, put that \
                file at \(path) and start it again
                """
        } catch {
            rescued.withLock { $0 = .failed }
            let next = again ? "they are lost when the server stops" : "make room, then stop the server gracefully (SIGTERM), which tries again; they are lost if it is killed"
            return "saving its contents to \(target) failed (\(error)): \(next)"
        }
    }

    /// How far the saving of a database file deleted under the store has come (``rescue(_:again:)``).
    enum RescueState: Sendable {
        case notYet, failed, done
    }

    /// When the database file was deleted or replaced: its contents saved (``rescue(_:again:)``,
    /// which holds the log's commits too). Else when the log was: its commits copied into the
    /// database file (``copyDeletedLog(_:stopping:)``). Returns what the operator must hear; nil
    /// when nothing is gone (or was saved already), and whether it is the first time it is said
    /// (a copy of the log that keeps failing is tried at every write, and is told of once).
    func saveWhatIsGone(_ connection: SQLiteConnection, stopping: Bool) -> (text: String, first: Bool)? {
        if let file, FileIdentity(path: path) != file { return rescue(connection, again: stopping).map { ($0, true) } }
        if let logFile, FileIdentity(path: path + "-wal") != logFile, let failed = copyDeletedLog(connection, stopping: stopping) {
            return (failed, toldOfDeletedLog.withLock { told in defer { told = true }; return !told })
        }
        return nil
    }

    /// Copies the commits of a log deleted under the store into the database file (a full
    /// checkpoint; the connections still see the deleted log); nil when every one of them is
    /// there, else what the operator must know: they are only in the deleted log (the copy
    /// failed for room, most often: the database file must grow), and a stop that cannot copy
    /// them either, or a kill, loses them. The store's last connection copies them as it closes
    /// (SQLite checkpoints then), so room made before a graceful stop saves them.
    private func copyDeletedLog(_ connection: SQLiteConnection, stopping: Bool) -> String? {
        var frames: Int32 = 0, copied: Int32 = 0
        let code = (try? connection.withHandle { handle throws(StoreError) in
            sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_FULL, &frames, &copied)
        }) ?? SQLITE_ERROR
        guard code != SQLITE_OK || copied < frames else { return nil }
        let next = stopping ? "they are lost"
            : """
            make room if the disk is full (or mend it); the copy is tried again at each write and at a graceful stop (SIGTERM), \
            which copies them as it closes the database; a restart before that, or a kill, loses them
            """
        return """
            the writes acknowledged since the last checkpoint are only in the deleted log, and copying them into \(path) \
            failed (\(String(cString: sqlite3_errstr(code))), \(max(0, copied)) of \(max(0, frames)) pages): \(next)
            """
    }

    /// Moves this store's write-ahead log and its index from beside `path` to beside `target`
    /// (the connections keep them open); says so, or nothing when the log at `PATH-wal` is not
    /// this store's (another put there since).
    private func setAsideLog(beside target: String) -> String {
        guard let logFile, FileIdentity(path: path + "-wal") == logFile else { return "" }
        var moved: [String] = []
        for suffix in ["-wal", "-shm"] where rename(path + suffix, target + ".stale" + suffix) == 0 {
            moved.append(target + ".stale" + suffix)
        }
        return moved.isEmpty ? "" : " (and this store's write-ahead log set aside as \(moved.joined(separator: " and ")), so that no start applies it to another file at \(path))"
    }

    /// A store made new at `path` beside copies rescued from an earlier one there: its change
    /// numbers and definition revisions start from the clock (``ChangeNumbers/fromClock()``),
    /// above every number the earlier store handed out, so a client holding one of those (an
    /// entity tag, a mirror's version) reloads rather than take the new store's contents for
    /// what it saw. Returns the copies, oldest first, for the start's warning.
    static func continueAfterRescuedCopies(path: String, _ connection: SQLiteConnection) throws(StoreError) -> [String] {
        let url = URL(fileURLWithPath: path)
        let prefix = url.lastPathComponent + ".rescued-"
        let folder = url.deletingLastPathComponent().path
        let copies = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix(prefix) && $0.dropFirst(prefix.count).allSatisfy(\.isNumber) && $0.count > prefix.count }
            .sorted()
            .map { url.deletingLastPathComponent().appendingPathComponent($0).path }
        guard !copies.isEmpty else { return [] }
        try connection.transaction { () throws(StoreError) in try continueFromTheClock(connection) }
        return copies
    }
}
