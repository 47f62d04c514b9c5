/// The SQLite schema, versioned through `PRAGMA user_version` so later releases can migrate.
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
        CREATE TABLE changes (
            sequence   INTEGER NOT NULL,
            collection TEXT NOT NULL,
            id         TEXT NOT NULL,
            operation  TEXT NOT NULL CHECK (operation IN ('upsert', 'delete'))
        );
        CREATE INDEX changes_by_sequence ON changes (sequence);
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
    ]

    static var currentVersion: Int { migrations.count }
}
