import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// A consistent copy of a live SQLite store, taken with SQLite's online backup API
/// (https://www.sqlite.org/backup.html) while a server serves and writes it.
///
/// The copy is read in one step, inside one read transaction of a second connection: in WAL
/// mode that transaction neither blocks the server's writer nor is blocked by it, and it sees
/// exactly the commits made before it began, so the copy holds every write acknowledged before
/// the backup started. The copy is written beside the destination, synced, then renamed over
/// it, so the destination is always either the old file or a whole new copy. The copy is one
/// self-contained file (rollback journal mode, no `-wal` beside it), marked as a copy (see
/// ``SQLiteStore/continueRestoredCopy(_:)``).
public enum SQLiteBackup {
    /// What a backup copied.
    public struct Summary: Sendable, Equatable {
        /// Database pages copied.
        public let pages: Int
        /// Size of the copy in bytes.
        public let bytes: Int
        /// The store's last change number in the copy.
        public let sequence: Int64
    }

    /// How long to keep retrying while the source is busy or locked, in seconds.
    static let busyLimitSeconds = 60

    /// Copies the store at `source` (which must exist) to `destination`, replacing it.
    public static func copy(from source: String, to destination: String) throws(StoreError) -> Summary {
        try SQLitePath.checkNotAFolder(destination, role: "--to")
        // The folder first: SQLite reads `..` in a path by its text, the kernel by the folders,
        // so a copy into a folder that does not exist was made in another and left there.
        guard let target = SQLitePath.canonical(destination) else {
            throw StoreError(.fileSystem, "the folder of \(destination) does not exist")
        }
        try SQLitePath.checkNotAFolder(source, role: "--data")
        let store = SQLitePath.canonical(SQLitePath.databaseFile(source))
        try SQLitePath.checkSingleName(source)
        if let sourceID = FileIdentity(path: source), sourceID == FileIdentity(path: destination) {
            throw StoreError(.fileSystem, "the backup would replace the database itself (\(destination))")
        }
        // Nor one of the files kept beside it, by name as well (one not there now may be made
        // at any moment): replacing the live log loses what it holds, SQLite deletes a journal
        // it finds at the next start, and a replaced lock file lets a second server in.
        // (SQLite names its files after the database file, a link at `source` followed; the
        // lock file is the store's own.)
        let lock = SQLiteStoreLock.path(ofDatabase: source)
        let companions: [(name: String, path: String, canonical: String?)] =
            ["-wal", "-shm", "-journal"].map { suffix in (suffix, (store ?? source) + suffix, store.map { $0 + suffix }) }
            + [(".lock", lock, lock)]
        for companion in companions {
            let sameFile = FileIdentity(path: companion.path).map { $0 == FileIdentity(path: destination) } ?? false
            if sameFile || companion.canonical == target {
                throw StoreError(.fileSystem, "the backup would replace the database's own \(companion.name) file (\(destination))")
            }
        }
        // Nor may the backup's own scratch files (`FILE.partial`, and SQLite's beside it), which
        // it empties and deletes, be the store or one of its files: a store named `FILE.partial`
        // was deleted by a backup to `FILE`.
        let kept = [store ?? source] + companions.map { $0.canonical ?? $0.path }
        let keptIDs = kept.compactMap { FileIdentity(path: $0) }
        for scratch in ["", "-journal", "-wal", "-shm"].map({ target + ".partial" + $0 }) {
            if kept.contains(scratch) || FileIdentity(path: scratch).map(keptIDs.contains) == true {
                throw StoreError(.fileSystem, "the backup's partial copy \(scratch) would be one of the database's own files: back up to another file")
            }
        }
        if access(destination + "-wal", F_OK) == 0 {
            throw StoreError(.fileSystem, """
                \(destination)-wal exists: a server may be using \(destination). \
                Stop it, or back up to another file
                """)
        }
        // The copy is in rollback mode: SQLite would play a journal left beside it (an earlier
        // copy's interrupted write) back into it on its first open.
        if access(destination + "-journal", F_OK) == 0 {
            throw StoreError(.fileSystem, """
                \(destination)-journal exists: a program may be writing \(destination), or one stopped in a write. \
                Back up to another file, or remove it once nothing uses \(destination)
                """)
        }
        let from = try SQLiteConnection(path: source, readOnly: true)
        defer { from.close() }
        return try copy(from, toPath: target)
    }

    /// Copies what `from` (an open connection) sees to `target` (a path checked by the caller),
    /// replacing it: written beside it, synced, renamed over it.
    ///
    /// One backup at a time writes `target`'s partial copy: it holds an exclusive `flock` on it
    /// until the copy is renamed, and a second backup to the same `target` (overlapping runs of
    /// a scheduled job) is refused rather than mixed in — each deleted the other's partial copy,
    /// and one could exit 0 printing the summary of a copy the other had renamed in place. A
    /// partial copy left by a backup that was killed holds no lock, and is started over.
    static func copy(_ from: SQLiteConnection, toPath target: String) throws(StoreError) -> Summary {
        let partial = target + ".partial"
        let claim = try claimPartial(partial, of: target)
        defer { close(claim) }
        // An empty file is an empty database to SQLite, whatever a killed backup left in it.
        guard ftruncate(claim, 0) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw StoreError(.fileSystem, "cannot empty \(partial): \(reason)")
        }
        let leftovers = ["-journal", "-wal", "-shm"].map { partial + $0 }
        leftovers.forEach { unlink($0) }
        defer { leftovers.forEach { unlink($0) } }
        let summary: Summary
        do throws(StoreError) {
            let to = try SQLiteConnection(path: partial)
            defer { to.close() }
            let pages = try backUp(from, to)
            // The copy came with the source's WAL mode; one self-contained file is easier to
            // keep and restore (the store turns WAL on again when it opens it).
            var mode = ""
            try to.query("PRAGMA journal_mode=DELETE") { row throws(StoreError) in mode = try row.text(0) }
            guard mode.lowercased() == "delete" else {
                throw StoreError(.incompatible, "cannot leave write-ahead logging on the copy (journal mode is '\(mode)')")
            }
            var sequence: Int64 = 0
            try to.query("SELECT value FROM state WHERE key = 'sequence'") { row in sequence = row.int(0) }
            // Marked as a copy: a store opened on it continues its change numbers past any the
            // original may have used since (``SQLiteStore/continueRestoredCopy(_:)``).
            try to.execute("INSERT OR REPLACE INTO state (key, value) VALUES ('\(SQLiteStore.restoredCopyKey)', 1)")
            var pageSize: Int64 = 0
            try to.query("PRAGMA page_size") { row in pageSize = row.int(0) }
            summary = Summary(pages: pages, bytes: pages * Int(pageSize), sequence: sequence)
        } catch {
            unlink(partial)
            throw error
        }
        try syncAndRename(partial, to: target)
        return summary
    }

    /// Opens `partial` and takes its exclusive `flock`; returns the descriptor. A file opened by
    /// name may be renamed before its lock is taken — a backup that just finished renames its
    /// partial copy into place, then lets the lock go — so the lock counts only while the name
    /// still leads to the file locked; else it is opened again (emptying the file it had, a
    /// finished backup, would lose that copy).
    private static func claimPartial(_ partial: String, of target: String) throws(StoreError) -> Int32 {
        while true {
            // Not through a link: the file it leads to would be emptied and written over.
            let claim = open(partial, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard claim >= 0 else {
                let reason = errno == ELOOP ? "it is a symbolic link; remove it" : String(cString: strerror(errno))
                throw StoreError(.fileSystem, "cannot open \(partial): \(reason)")
            }
            guard flock(claim, LOCK_EX | LOCK_NB) == 0 else {
                close(claim)
                throw StoreError(.fileSystem, "another backup to \(target) is under way (it holds \(partial))")
            }
            var held = stat(), named = stat()
            if fstat(claim, &held) == 0, lstat(partial, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino {
                return claim
            }
            close(claim)
        }
    }

    /// Copies every page in one step; returns how many there were.
    private static func backUp(_ from: SQLiteConnection, _ to: SQLiteConnection) throws(StoreError) -> Int {
        try to.withHandle { destination throws(StoreError) -> Int in
            try from.withHandle { source throws(StoreError) -> Int in
                guard let backup = sqlite3_backup_init(destination, "main", source, "main") else {
                    throw SQLiteConnection.error(sqlite3_extended_errcode(destination), destination)
                }
                var waited = 0
                var code = sqlite3_backup_step(backup, -1)
                // Busy or locked (another connection holds a lock the step needs): wait and retry.
                while code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED, waited < busyLimitSeconds * 20 {
                    sqlite3_sleep(50)
                    waited += 1
                    code = sqlite3_backup_step(backup, -1)
                }
                let pages = Int(sqlite3_backup_pagecount(backup))
                // `finish` releases the backup and reports its outcome (the step's failure, if any).
                let finished = sqlite3_backup_finish(backup)
                guard code == SQLITE_DONE, finished == SQLITE_OK else {
                    let failure = code == SQLITE_DONE ? finished : code
                    throw StoreError(.sqlite(extendedCode: failure),
                                     "backup failed: \(String(cString: sqlite3_errstr(failure)))")
                }
                return pages
            }
        }
    }

    /// Syncs the copy (SQLite synced its commit; this covers the file's metadata), renames it
    /// over `destination`, and syncs the folder so the rename is durable.
    private static func syncAndRename(_ partial: String, to destination: String) throws(StoreError) {
        try sync(partial)
        guard rename(partial, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw StoreError(.fileSystem, "cannot rename \(partial) to \(destination): \(reason)")
        }
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { $0 == destination.startIndex ? "/" : String(destination[..<$0]) } ?? "."
        try sync(folder)
    }

    private static func sync(_ path: String) throws(StoreError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw StoreError(.fileSystem, "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw StoreError(.fileSystem, "cannot sync \(path): \(String(cString: strerror(errno)))") }
    }
}
