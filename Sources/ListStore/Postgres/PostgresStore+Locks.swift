/// Waiting for locks: the lock timeout every session of the store starts with, and the advisory
/// locks instances take turns on to migrate, seed and index, whose waits it does not bound.
extension PostgresStore {
    /// The longest a statement of the store's connections waits for a lock (`lock_timeout`, in
    /// milliseconds): 5 s, as long as SQLite's busy timeout (`SQLiteConnection`). A write held up
    /// longer — by a `LOCK TABLE`, or a commit of another instance that takes that long — fails
    /// with `55P03` (the `locked` fault: `503`, `Retry-After: 1`, nothing kept) instead of leaving
    /// its client waiting as long as the lock lasts. Set on every session of the write and read
    /// connections, over any `lock_timeout` in the URL; the waits for the advisory locks that take
    /// turns to migrate, seed and index are not bounded (``takeAdvisoryLock(_:on:)``).
    static let lockTimeoutMilliseconds = 5_000

    /// How long a write waits for a lock while the write before it waited out the lock timeout
    /// in vain (``writing(_:)``), as ``SQLiteStore/heldDatabaseWait`` does.
    static let heldLockWaitMilliseconds = 100

    /// What every session of the store's connections starts with: the lock timeout, and `READ
    /// COMMITTED` for the statements that run outside ``PostgresConnection/transaction(_:)`` too
    /// (the outbox's claims and acknowledgements: under a database's `default_transaction_isolation`
    /// of `repeatable read`, a claim's `FOR UPDATE SKIP LOCKED` meeting a row a commit had just
    /// changed failed with a serialization error instead of skipping or waiting); and commits
    /// that wait for their WAL to be flushed, whatever the database's or role's default: with
    /// `synchronous_commit = off` a 2xx went out before the write was on disk (any other value
    /// flushes locally, and is kept).
    static let sessionSetup = "SET lock_timeout = \(lockTimeoutMilliseconds); SET default_transaction_isolation = 'read committed'; "
        + "SELECT set_config('synchronous_commit', 'on', false) WHERE current_setting('synchronous_commit') = 'off'"

    /// Takes the session advisory lock `key`, waiting as long as another session holds it (the
    /// lock timeout is lifted for this wait only, in a transaction of its own; a session lock
    /// outlives it): an instance that starts while another migrates or seeds waits its turn.
    static func takeAdvisoryLock(_ key: Int64, on connection: PostgresConnection) throws(PostgresError) {
        try connection.transaction { () throws(PostgresError) in
            try connection.executeScript("SET LOCAL lock_timeout = 0")
            try connection.execute("SELECT pg_advisory_lock($1::bigint)", .int(key))
        }
        connection.heldSessionLocks += 1
    }

    /// Releases what ``takeAdvisoryLock(_:on:)`` took. Counted released even when the unlock
    /// fails: the session it was held in is gone then, and the lock with it.
    static func releaseAdvisoryLock(_ key: Int64, on connection: PostgresConnection) {
        connection.heldSessionLocks -= 1
        _ = try? connection.execute("SELECT pg_advisory_unlock($1::bigint)", .int(key))
    }

    /// Brings the schema to ``PostgresSchema/currentVersion`` under a session advisory lock, each
    /// migration in its own transaction with the version it reaches. A migration waits for a table
    /// lock no longer than ``lockTimeoutMilliseconds`` (start-up fails with `55P03`, lock_not_available).
    static func migrate(_ connection: PostgresConnection) throws(PostgresError) {
        try takeAdvisoryLock(PostgresSchema.migrationLock, on: connection)
        defer { releaseAdvisoryLock(PostgresSchema.migrationLock, on: connection) }
        try connection.executeScript("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)")
        let row = try connection.execute("SELECT version FROM schema_version")
        var version = row.rowCount > 0 ? Int(try row.int(0, 0)) : 0
        if row.rowCount == 0 { try connection.execute("INSERT INTO schema_version (version) VALUES (0)") }
        guard version <= PostgresSchema.currentVersion else {
            throw PostgresError(incompatible: "database schema version \(version) is newer than this build understands (\(PostgresSchema.currentVersion))")
        }
        while version < PostgresSchema.currentVersion {
            try connection.transaction { () throws(PostgresError) in
                try connection.executeScript(PostgresSchema.migrations[version])
                try connection.execute("UPDATE schema_version SET version = $1::integer", .int(Int64(version + 1)))
            }
            version += 1
        }
    }

    /// Runs `body` while holding a session advisory lock that every instance takes to seed: of
    /// several instances starting at once on an empty database, one seeds, the others then find
    /// the collections filled.
    public func holdingSeedLock<T>(_ body: () throws -> T) throws -> T {
        try writing { connection throws(PostgresError) in
            try Self.takeAdvisoryLock(PostgresSchema.seedLock, on: connection)
        }
        defer { _ = try? writing { connection throws(PostgresError) in Self.releaseAdvisoryLock(PostgresSchema.seedLock, on: connection) } }
        return try body()
    }
}
