/// The SQLite schema, versioned through `PRAGMA user_version` so later releases can migrate.
///
/// Every record carries the `sequence` of the commit that last wrote it; `state` holds the last
/// one. An SQLite store has one server (``SQLiteStoreLock``), so nothing reads a log of changes
/// back: the `deletions` table of tombstones the first version kept for one was written on every
/// delete and never read, and the last migration drops it.
enum SQLiteSchema {
    /// Migrations in order; migration `i` moves a database from version `i` to `i + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE records (
            collection TEXT NOT NULL,
            id         TEXT NOT NULL,
            json       BLOB NOT NULL,
            sequence   INTEGER NOT NULL,
            PRIMARY KEY (collection, id)
        ) WITHOUT ROWID;
        CREATE TABLE collections (
            name     TEXT PRIMARY KEY,
            sequence INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE deletions (
            sequence   INTEGER NOT NULL,
            collection TEXT NOT NULL,
            id         TEXT NOT NULL,
            PRIMARY KEY (sequence, collection, id)
        ) WITHOUT ROWID;
        CREATE TABLE state (
            key   TEXT PRIMARY KEY,
            value INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO state (key, value) VALUES ('sequence', 0);
        CREATE TABLE views (
            id        TEXT PRIMARY KEY,
            list      TEXT NOT NULL,
            hidden    TEXT NOT NULL,
            last_used INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // Views belong to a user on lists read by signed-in users.
        "ALTER TABLE views ADD COLUMN owner TEXT;",
        // The last commit that touched each value of a prepared field (a partition's version).
        // A row with the empty key marks a field whose existing records have been counted.
        """
        CREATE TABLE field_versions (
            collection TEXT NOT NULL,
            field      TEXT NOT NULL,
            key        TEXT NOT NULL,
            sequence   INTEGER NOT NULL,
            PRIMARY KEY (collection, field, key)
        ) WITHOUT ROWID;
        """,
        // List definitions changed at run time; a removed one keeps its row (json NULL) so its
        // revision keeps counting.
        """
        CREATE TABLE definitions (
            list     TEXT PRIMARY KEY,
            json     BLOB,
            revision INTEGER NOT NULL,
            sequence INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // Webhook deliveries waiting to be sent: one row per webhook, list and partition ('' for
        // a whole list) holding the latest version, written in the commit that moved it. Times
        // are milliseconds since 1970; a claim holds a row for one worker while it delivers.
        """
        CREATE TABLE outbox (
            webhook       TEXT NOT NULL,
            list          TEXT NOT NULL,
            partition_key TEXT NOT NULL,
            user_json     TEXT,
            version       INTEGER NOT NULL,
            attempts      INTEGER NOT NULL DEFAULT 0,
            due_at        INTEGER NOT NULL DEFAULT 0,
            claimed_by    TEXT,
            claimed_until INTEGER,
            PRIMARY KEY (webhook, list, partition_key)
        ) WITHOUT ROWID;
        """,
        // The definition each list was last served with (a fingerprint, as a signed 64-bit
        // integer) and the change number it came into force at.
        """
        CREATE TABLE served (
            list        TEXT PRIMARY KEY,
            fingerprint INTEGER NOT NULL,
            sequence    INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // The change number since which an outbox row has waited (the version it was recorded at,
        // kept while later versions replace it): claims take the longest-waiting rows first, so
        // partitions written over and over cannot starve the others. Rows from before take their
        // version.
        """
        ALTER TABLE outbox ADD COLUMN pending_since INTEGER NOT NULL DEFAULT 0;
        UPDATE outbox SET pending_since = version;
        """,
        // Tombstones of deleted records, written and never read (see above).
        "DROP TABLE deletions;",
    ]

    static var currentVersion: Int { migrations.count }
}
