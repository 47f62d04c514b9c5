/// The PostgreSQL schema, versioned in `schema_version` and migrated at start-up by
/// ``PostgresStore`` under a session advisory lock, so several instances starting together
/// migrate once: the first takes the lock and migrates, the others wait, then find nothing to do.
///
/// - `records` holds each record's JSON as type `json`, not `jsonb`: `json` keeps the text exactly
///   as written (spacing, member order, duplicate members, numbers like `1.50`), so a record reads
///   back byte for byte, as on SQLite; the server still checks it is well-formed JSON, and
///   `#>>` reads a field for the expression indexes ``PostgresStore/prepareField(_:in:)`` makes.
///   `jsonb` would normalise the text, and answers are built from the stored bytes.
/// - Each record carries the `sequence` of the commit that last wrote it (its version).
/// - Ids and collection names sort with `COLLATE "C"` (byte order, which for UTF-8 is code point
///   order) whatever the database's default collation, so paging by id agrees with the other stores.
/// - `state` holds the one change sequence; its row is the lock that orders commits (see
///   ``PostgresStore``). `collections` remembers the last change of each collection.
/// - `changes` is the change log: every write of every commit, in order — `(sequence, position)`,
///   the record's JSON after the write, NULL for a delete — written in the commit's transaction.
///   Other instances read it to follow this one's writes.
///   For the collections per-user lists read it also holds the JSON before the write
///   (`previous`). A change of a view is logged under its own number in collection ``viewsLog``.
/// - `prepared_fields` and `field_versions`: the last commit that touched each value of a
///   prepared field (a per-user partition's version), kept by every instance's commits.
/// - `definitions`: list definitions changed at run time, each change a commit of its own.
/// - `outbox`: webhook deliveries waiting to be sent (see `PostgresStore+Outbox.swift`).
public enum PostgresSchema {
    /// Migrations in order; migration `i` moves a database from version `i` to `i + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE records (
            collection text COLLATE "C" NOT NULL,
            id         text COLLATE "C" NOT NULL,
            json       json NOT NULL,
            sequence   bigint NOT NULL,
            PRIMARY KEY (collection, id)
        );
        CREATE TABLE collections (
            name     text COLLATE "C" PRIMARY KEY,
            sequence bigint NOT NULL
        );
        CREATE TABLE state (
            key   text PRIMARY KEY,
            value bigint NOT NULL
        );
        INSERT INTO state (key, value) VALUES ('sequence', 0);
        CREATE TABLE changes (
            sequence   bigint NOT NULL,
            position   integer NOT NULL,
            collection text COLLATE "C" NOT NULL,
            id         text COLLATE "C" NOT NULL,
            json       json,
            PRIMARY KEY (sequence, position)
        );
        CREATE TABLE views (
            id        text COLLATE "C" PRIMARY KEY,
            list      text NOT NULL,
            owner     text,
            hidden    text NOT NULL,
            last_used bigint NOT NULL
        );
        CREATE TABLE prepared_fields (
            collection text COLLATE "C" NOT NULL,
            field      text COLLATE "C" NOT NULL,
            PRIMARY KEY (collection, field)
        );
        CREATE TABLE field_versions (
            collection text COLLATE "C" NOT NULL,
            field      text COLLATE "C" NOT NULL,
            key        text COLLATE "C" NOT NULL,
            sequence   bigint NOT NULL,
            PRIMARY KEY (collection, field, key)
        );
        """,
        // List definitions changed at run time; a removed one keeps its row (json NULL) so its
        // revision keeps counting.
        """
        CREATE TABLE definitions (
            list     text COLLATE "C" PRIMARY KEY,
            json     json,
            revision bigint NOT NULL,
            sequence bigint NOT NULL
        );
        """,
        // 3: the change log also holds a record's JSON before the write (for collections per-user
        // lists read: another instance needs the old owner of a record that moves), and changes
        // of views (collection `#views`, never a collection's name) so every instance follows them.
        """
        ALTER TABLE changes ADD COLUMN previous json;
        """,
        // 4: webhook deliveries waiting to be sent, one row per webhook, list and partition
        // ('' for a whole list) with the latest version, written in the commit that moved it.
        // Times are milliseconds since 1970; a claim holds a row for one instance's worker.
        """
        CREATE TABLE outbox (
            webhook       text COLLATE "C" NOT NULL,
            list          text COLLATE "C" NOT NULL,
            partition_key text COLLATE "C" NOT NULL,
            user_json     text,
            version       bigint NOT NULL,
            attempts      integer NOT NULL DEFAULT 0,
            due_at        bigint NOT NULL DEFAULT 0,
            claimed_by    text,
            claimed_until bigint,
            PRIMARY KEY (webhook, list, partition_key)
        );
        """,
        // 5: the definition each list was last served with (a fingerprint, as a signed 64-bit
        // integer) and the change number it came into force at.
        """
        CREATE TABLE served (
            list        text COLLATE "C" PRIMARY KEY,
            fingerprint bigint NOT NULL,
            sequence    bigint NOT NULL
        );
        """,
        // 6: the change number since which an outbox row has waited (the version it was recorded
        // at, kept while later versions replace it): claims take the longest-waiting rows first, so
        // partitions written over and over cannot starve the others. Rows from before take their
        // version.
        """
        ALTER TABLE outbox ADD COLUMN pending_since bigint NOT NULL DEFAULT 0;
        UPDATE outbox SET pending_since = version;
        """,
        // 7: claims find the due rows by index: without it a claim read every row of the webhook,
        // also when none was due (as SQLite's did: see its schema).
        "CREATE INDEX outbox_due ON outbox (webhook, due_at, claimed_until);",
    ]

    static var currentVersion: Int { migrations.count }

    /// The change log's collection for changes of views: not a valid collection name.
    public static let viewsLog = "#views"
    /// The advisory lock key held while seeding empty collections.
    static let seedLock: Int64 = 0x5345_4354_5345_4544

    /// The advisory lock key held while migrating (any fixed number; "Sectional schema").
    static let migrationLock: Int64 = 0x5345_4354_5343_4845
    /// The advisory lock key held while creating a field index.
    static let indexLock: Int64 = 0x5345_4354_4944_5820
}
