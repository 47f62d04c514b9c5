import CSQLite
import Dispatch
import Locking
import Synchronization

/// Runs SQLite's checkpoints (copying the write-ahead log back into the database file) on a
/// thread of its own, so that a commit never waits for one.
///
/// By default SQLite checkpoints in the commit that takes the log past 1,000 pages, on the
/// committing connection: with `synchronous=FULL` that commit also copies the pages and waits
/// for the database file's fsync. Under `make bench`'s mixed reads and writes that was about
/// one commit a second, each waiting 16–19 ms for that fsync alone (`strace -T`), against
/// 0.7 ms for a commit's own — the writes' p99.
///
/// Installed on the writing connection as its WAL hook (which replaces SQLite's automatic
/// checkpoints): after a commit leaves ``backgroundPages`` or more in the log, a passive
/// checkpoint runs on the checkpointer's own connection, at most one at a time. A passive
/// checkpoint takes no lock a writer waits for, copies what no reader still needs, and lets the
/// next commit start the log over once everything is copied. Should the log still reach
/// ``foregroundPages`` (readers holding old snapshots, or a checkpoint failing, say on a full
/// disk), the committing thread checkpoints itself, as SQLite would have. A failed checkpoint
/// loses nothing: the pages stay in the log, and the next one copies them.
final class SQLiteCheckpointer: Sendable {
    /// Log pages after a commit that start a checkpoint in the background: SQLite's own
    /// threshold (4 MiB of 4 KiB pages).
    static let backgroundPages: Int32 = 1_000
    /// Log pages after a commit at which the committing thread checkpoints itself (80 MiB).
    static let foregroundPages: Int32 = 20_000

    private let background: Int32
    private let foreground: Int32
    private let connection: Locked<SQLiteConnection>
    private let queue = DispatchQueue(label: "sectional.sqlite.checkpoint", qos: .utility)
    private let running = Atomic<Bool>(false)
    private let counts = Locked((background: 0, foreground: 0))

    /// A checkpointer for the database at `path`, with a connection of its own (thresholds in
    /// log pages; tests pass small ones).
    init(path: String, background: Int32 = backgroundPages, foreground: Int32 = foregroundPages) throws(StoreError) {
        self.background = background
        self.foreground = foreground
        let connection = try SQLiteConnection(path: path)
        // What a checkpoint syncs follows the connection that runs it: the writer's setting.
        try connection.execute("PRAGMA synchronous=FULL;")
        self.connection = Locked(connection)
    }

    /// Checkpoints run so far: in the background, and by a committing thread.
    var checkpoints: (background: Int, foreground: Int) { counts.withLock { $0 } }

    /// Takes over the checkpoints of `writer` (the one connection that commits). Call
    /// ``stop(on:)`` before this object goes away.
    func start(on writer: SQLiteConnection) throws(StoreError) {
        try writer.withHandle { handle throws(StoreError) in
            _ = sqlite3_wal_hook(handle, sectionalWALHook, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// Gives `writer` back no hook (so no automatic checkpoints: the last connection to close
    /// checkpoints anyway), waits for a checkpoint under way, and closes this connection.
    func stop(on writer: SQLiteConnection) {
        _ = try? writer.withHandle { handle throws(StoreError) in sqlite3_wal_hook(handle, nil, nil) }
        queue.sync {}
        connection.withLock { $0.close() }
    }

    /// After a commit of `database` on `handle` left `pages` in the log.
    fileprivate func committed(pages: Int32, handle: OpaquePointer?, database: UnsafePointer<CChar>?) {
        if pages >= foreground {
            // Errors are the background's too: the pages stay in the log.
            _ = sqlite3_wal_checkpoint_v2(handle, database, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            counts.withLock { $0.foreground += 1 }
        } else if pages >= background,
                  running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            queue.async { [self] in
                connection.withLock { connection in
                    _ = try? connection.withHandle { handle throws(StoreError) in
                        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                    }
                }
                counts.withLock { $0.background += 1 }
                running.store(false, ordering: .releasing)
            }
        }
    }
}

/// The WAL hook: SQLite calls it on the committing thread after each commit, with the
/// ``SQLiteCheckpointer`` given to `sqlite3_wal_hook`. Returning an error would make the
/// commit, which has happened, report one.
private func sectionalWALHook(_ context: UnsafeMutableRawPointer?, _ handle: OpaquePointer?,
                              _ database: UnsafePointer<CChar>?, _ pages: Int32) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue()
        .committed(pages: pages, handle: handle, database: database)
    return SQLITE_OK
}
