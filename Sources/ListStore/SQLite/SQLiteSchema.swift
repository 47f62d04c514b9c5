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
        // Claims count the due rows first, and read only those when they are few (see
        // `claimDeliveries`): without it a claim read and sorted every row of the webhook under
        // the store's write lock even when none was due (6.4 ms with 100,000 rows:
        // Benchmarks/outbox-claims.py), and every commit to a list wakes the worker.
        "CREATE INDEX outbox_due ON outbox (webhook, due_at, claimed_until);",
    ]

    static var currentVersion: Int { migrations.count }

    /// Sectional's mark in a database's header (`PRAGMA application_id`, the bytes "Sect"),
    /// set at the first start of a release that knows it.
    static let applicationID: Int64 = 0x5365_6374

    /// Refuses a database another application made, before anything in it changes: a path
    /// mistyped onto another program's SQLite file had it switched to write-ahead logging and
    /// Sectional's tables added beside its own (or half of them, when its `user_version` was
    /// taken for a schema version), the demo data seeded into it. A database is Sectional's when
    /// it is new (no tables, no mark), carries the mark, or — made before the mark — has
    /// Sectional's `records` and `state` tables.
    static func checkOwnership(_ connection: SQLiteConnection, path: String) throws(StoreError) {
        var application: Int64 = 0, version: Int64 = 0
        var tables: [String] = []
        try connection.query("PRAGMA application_id") { row in application = row.int(0) }
        try connection.query("PRAGMA user_version") { row in version = row.int(0) }
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name") {
            row throws(StoreError) in tables.append(try row.text(0))
        }
        if application == applicationID || (application == 0 && version == 0 && tables.isEmpty) { return }
        if application == 0, version > 0, tables.contains("records"), tables.contains("state") { return }
        let shown = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", …" : "")
        let what = application != 0 ? "its application id is \(application)"
            : tables.isEmpty ? "its user_version is \(version), and it has no tables" : "it holds the tables \(shown)"
        throw StoreError(.incompatible, "\(path) is not a Sectional store (\(what)): name a new file, or a store Sectional made")
    }

    /// Marks a Sectional store (see ``applicationID``), once.
    static func mark(_ connection: SQLiteConnection) throws(StoreError) {
        var application: Int64 = 0
        try connection.query("PRAGMA application_id") { row in application = row.int(0) }
        if application != applicationID { try connection.execute("PRAGMA application_id = \(applicationID)") }
    }
}
