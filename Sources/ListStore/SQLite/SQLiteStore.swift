import CSQLite
import Foundation
import ListModel
import Locking

/// The embedded default store: one SQLite file in WAL mode, `synchronous=FULL`, so a commit is
/// on disk before its caller answers 2xx and survives `kill -9` (and power loss).
///
/// Writes go through one connection, reads through another, each behind its own lock, so
/// record reads never wait for a commit's fsync; checkpoints run on a third, in the background
/// (``SQLiteCheckpointer``), so no commit waits for one.
public final class SQLiteStore: RecordStore, @unchecked Sendable {
    /// The one connection that writes, used only while holding `writeLock` (through
    /// ``writing(_:)`` for every write).
    private let writer: SQLiteConnection
    /// Held while writing; true while the last write found the database held by another
    /// connection (see ``writing(_:)``).
    private let writeLock = Locked(false)
    /// Whether the database file was found deleted or replaced and its contents saved
    /// (``rescue(_:again:)``).
    let rescued = Locked(RescueState.notYet)
    /// Whether the operator was told that a deleted log's commits could not be copied.
    let toldOfDeletedLog = Locked(false)
    /// Prepared fields by collection, whose values' versions commits keep in `field_versions`:
    /// every field any start prepared (read at open from `field_versions`' marker rows), not
    /// only this start's. A field prepared before but not now is still kept: the version of its
    /// values must move with every write, or a later start that prepares it again (the list
    /// back in the configuration, its records seeded) would serve new contents at an old version.
    private let fields: Locked<[String: [FieldPath]]>
    /// The fields this start prepared: their partial indexes are known to exist (a marker from an
    /// earlier release may have none), so look-ups may name them.
    private let indexed = Locked<[String: [FieldPath]]>([:])
    let reader: Locked<SQLiteConnection>
    /// Checkpoints the log off the writer's thread.
    let checkpointer: SQLiteCheckpointer
    /// The database file's path, and the files it and its write-ahead log named when opened:
    /// every write checks they still do (``writing(_:)``). SQLite goes on writing to a file
    /// deleted (or replaced) under it, and those writes are gone at the next start, so
    /// acknowledging them would be a lie.
    let path: String
    let file: FileIdentity?
    let logFile: FileIdentity?
    /// This store's claim on the database, held until ``close()``: a second store (a second
    /// server) on the same file refuses to open.
    private let lock: SQLiteStoreLock
    /// Copies an earlier store at this path left when its file was deleted or replaced under it
    /// (``rescue(_:again:)``), found beside this store when it was made new: the server warns of
    /// them at start (``continueAfterRescuedCopies(path:_:)``).
    public let rescuedCopiesBeside: [String]

    /// Opens (creating if needed) the database at `path` and migrates its schema; throws
    /// `inUse` when another open store, in this process or another, holds it.
    ///
    /// The store works on the file a symbolic link at `path` leads to (``path`` names it): SQLite
    /// names its write-ahead log after that file, and the checks that a write's files are still
    /// the ones opened (``writing(_:)``) must look at those names.
    public init(path given: String) throws(StoreError) {
        try SQLitePath.checkNotAFolder(given, role: "the SQLite store's path")
        let directory = (given as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreError(.fileSystem, "cannot create folder \(directory): \(error.localizedDescription)")
            }
        }
        let path = SQLitePath.databaseFile(given)
        let lock = try SQLiteStoreLock(databasePath: given)
        try SQLitePath.checkSingleName(path)
        let writeConnection = try SQLiteConnection(path: path)
        try SQLiteSchema.checkOwnership(writeConnection, path: path)
        var mode = ""
        try writeConnection.query("PRAGMA journal_mode=WAL") { row throws(StoreError) in mode = try row.text(0) }
        guard mode.lowercased() == "wal" else {
            throw StoreError(.incompatible, "SQLite database \(path) cannot use write-ahead logging (journal mode is '\(mode)')")
        }
        // The log starts over in place once checkpointed; with a limit it also shrinks back then.
        // Without one it kept the size of its largest spike (a reader holding an old snapshot, a
        // backup say, or checkpoints failing on a full disk) until the server stopped: room
        // taken on the disk least likely to have it.
        try writeConnection.execute("PRAGMA synchronous=FULL; PRAGMA cache_size=-32768; PRAGMA journal_size_limit=\(Self.logSizeLimit);")
        var schemaVersion = 0
        try writeConnection.query("PRAGMA user_version") { row in schemaVersion = Int(row.int(0)) }
        try Self.migrate(writeConnection)
        try SQLiteSchema.mark(writeConnection)
        try Self.continueRestoredCopy(writeConnection)
        try Self.releaseClaims(on: writeConnection)
        rescuedCopiesBeside = schemaVersion == 0 ? try Self.continueAfterRescuedCopies(path: path, writeConnection) : []
        fields = Locked(try Self.trackedFields(writeConnection))
        let readConnection = try SQLiteConnection(path: path)
        try readConnection.execute("PRAGMA query_only=ON;")
        checkpointer = try SQLiteCheckpointer(path: path)
        try checkpointer.start(on: writeConnection)
        writer = writeConnection
        reader = Locked(readConnection)
        self.path = path
        file = FileIdentity(path: path)
        // The log exists from the first transaction (the migration's read above) until the last
        // connection closes; SQLite starts it over in place, never under a new name, meanwhile.
        logFile = FileIdentity(path: path + "-wal")
        self.lock = lock
    }

    /// The `state` key a backup marks its copy with.
    static let restoredCopyKey = "restoredCopy"

    /// Continues a backup's copy opened for the first time (a restore) at a change number no
    /// store it was copied from can have used: the original went on after the backup, and
    /// reusing its numbers for other contents would let a client holding one (an entity tag, a
    /// mirror's version, a `Last-Event-ID`) take the restored lists for what it saw (a `304`
    /// for another body, an empty `changes`). The copy's last change number becomes the time
    /// in microseconds since 1970 when larger — a store commits far fewer than one change a
    /// microsecond (a commit takes about 280 µs), so no number the original reached since is
    /// as large — and every list's served definition is forgotten (recorded as
    /// ``ServedDefinition/removedFingerprint``, as for a list no longer served), so the service moves every
    /// list to a new version past it at start (as after a definition edited while no server
    /// ran), and `changes` from before answers reload. Then the mark is removed: a later start
    /// of the same store goes on from where it is.
    static func continueRestoredCopy(_ connection: SQLiteConnection) throws(StoreError) {
        var marked = false
        try connection.query("SELECT 1 FROM state WHERE key = ?", .text(restoredCopyKey)) { _ in marked = true }
        guard marked else { return }
        try connection.transaction { () throws(StoreError) in
            try continueFromTheClock(connection)
            try connection.run("UPDATE served SET fingerprint = ?", .int(Int64(bitPattern: ServedDefinition.removedFingerprint)))
            try connection.run("DELETE FROM state WHERE key = ?", .text(restoredCopyKey))
        }
    }

    private static func migrate(_ connection: SQLiteConnection) throws(StoreError) {
        var version = 0
        try connection.query("PRAGMA user_version") { row in version = Int(row.int(0)) }
        guard version <= SQLiteSchema.currentVersion else {
            throw StoreError(.incompatible, "database schema version \(version) is newer than this build understands (\(SQLiteSchema.currentVersion))")
        }
        for index in version..<SQLiteSchema.currentVersion {
            try connection.transaction { () throws(StoreError) in
                try connection.execute(SQLiteSchema.migrations[index])
                try connection.execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }

    public func lastSequence() throws(StoreError) -> Int64 {
        try reader.withLock { connection throws(StoreError) in try Self.sequence(on: connection) }
    }

    /// The last committed change number, as `connection` sees it.
    static func sequence(on connection: SQLiteConnection) throws(StoreError) -> Int64 {
        var sequence: Int64 = 0
        try connection.query("SELECT value FROM state WHERE key = 'sequence'") { row in sequence = row.int(0) }
        return sequence
    }

    public func collectionSequences() throws(StoreError) -> [String: Int64] {
        try reader.withLock { connection throws(StoreError) in
            var result: [String: Int64] = [:]
            try connection.query("SELECT name, sequence FROM collections") { row throws(StoreError) in
                result[try row.text(0)] = row.int(1)
            }
            return result
        }
    }

    public func allRecords(in collection: String) throws(StoreError) -> [StoredRecord] {
        try records(in: collection, after: nil, limit: Int.max)
    }

    public func forEachPage(in collection: String, pageSize: Int,
                            _ body: @Sendable ([StoredRecord]) throws(StoreError) -> Void) throws(StoreError) {
        try reader.withLock { connection throws(StoreError) in
            var page: [StoredRecord] = []
            page.reserveCapacity(pageSize)
            try connection.query("SELECT id, json FROM records WHERE collection = ? ORDER BY id", .text(collection)) {
                row throws(StoreError) in
                page.append(StoredRecord(id: try row.text(0), json: try row.blob(1)))
                if page.count >= pageSize {
                    try body(page)
                    page.removeAll(keepingCapacity: true)
                }
            }
            if !page.isEmpty { try body(page) }
        }
    }

    public func record(in collection: String, id: String) throws(StoreError) -> StoredRecord? {
        try reader.withLock { connection throws(StoreError) in
            var found: StoredRecord?
            try connection.query("SELECT json, sequence FROM records WHERE collection = ? AND id = ?", .text(collection), .text(id)) {
                row throws(StoreError) in found = StoredRecord(id: id, json: try row.blob(0), version: row.int(1))
            }
            return found
        }
    }

    public func records(in collection: String, after afterID: String?, limit: Int) throws(StoreError) -> [StoredRecord] {
        try reader.withLock { connection throws(StoreError) in
            var result: [StoredRecord] = []
            try connection.query("SELECT id, json FROM records WHERE collection = ? AND id > ? ORDER BY id LIMIT ?",
                                 .text(collection), .text(afterID ?? ""), .int(Int64(min(limit, Int(Int64.max))))) {
                row throws(StoreError) in result.append(StoredRecord(id: try row.text(0), json: try row.blob(1)))
            }
            return result
        }
    }

    public func prepareField(_ field: FieldPath, in collection: String) throws(StoreError) {
        try writeLock.withLock { _ throws(StoreError) in
            let connection = writer
            if let expression = Self.fieldExpression(field) {
                // Partial: only the collection's records pay for the index (an index over every
                // record made each write to any collection evaluate the field's json_extract).
                try connection.execute("""
                    CREATE INDEX IF NOT EXISTS \(Self.indexName(field, in: collection)) ON records (collection, \(expression))
                    WHERE collection = \(Self.literal(collection))
                    """)
                // The index of the same field over every collection that earlier versions made.
                try connection.execute("DROP INDEX IF EXISTS \(Self.indexName(field))")
            }
            try connection.transaction { () throws(StoreError) in
                var counted = false
                try connection.query("SELECT 1 FROM field_versions WHERE collection = ? AND field = ? AND key = ''",
                                     .text(collection), .text(field.description)) { _ in counted = true }
                guard !counted else { return }
                // First time: count the records already stored, each at the commit that last wrote it.
                var versions: [String: Int64] = [:]
                try connection.query("SELECT json, sequence FROM records WHERE collection = ?", .text(collection)) { row throws(StoreError) in
                    let json = try row.blob(0)
                    guard let value = try? JSONParser.parse(json), let key = ScalarKey(field: field, of: value) else { return }
                    versions[key.text] = max(versions[key.text] ?? 0, row.int(1))
                }
                versions[""] = 0
                for (key, sequence) in versions {
                    try connection.run("INSERT OR REPLACE INTO field_versions (collection, field, key, sequence) VALUES (?, ?, ?, ?)",
                                       .text(collection), .text(field.description), .text(key), .int(sequence))
                }
            }
        }
        fields.withLock { Self.add(field, in: collection, to: &$0) }
        indexed.withLock { Self.add(field, in: collection, to: &$0) }
    }

    private static func add(_ field: FieldPath, in collection: String, to fields: inout [String: [FieldPath]]) {
        if !(fields[collection]?.contains(field) ?? false) { fields[collection, default: []].append(field) }
    }

    /// The fields `field_versions` has a marker row for (``prepareField(_:in:)`` counted them), by
    /// collection.
    private static func trackedFields(_ connection: SQLiteConnection) throws(StoreError) -> [String: [FieldPath]] {
        var fields: [String: [FieldPath]] = [:]
        try connection.query("SELECT collection, field FROM field_versions WHERE key = '' ORDER BY collection, field") { row throws(StoreError) in
            if let field = FieldPath(try row.text(1)) { fields[try row.text(0), default: []].append(field) }
        }
        return fields
    }

    public func fieldVersion(_ field: FieldPath, in collection: String, key: ScalarKey) throws(StoreError) -> Int64? {
        try reader.withLock { connection throws(StoreError) in
            var version: Int64?
            try connection.query("SELECT sequence FROM field_versions WHERE collection = ? AND field = ? AND key = ?",
                                 .text(collection), .text(field.description), .text(key.text)) { row in version = row.int(0) }
            return version
        }
    }

    public var tracksFieldVersions: Bool { true }

    /// Moves the versions of the prepared fields' values a write touches (before and after).
    private func touchFields(_ fields: [FieldPath], collection: String, old: [UInt8]?, new: [UInt8]?, sequence: Int64,
                             on connection: SQLiteConnection) throws(StoreError) {
        let records = [old, new].compactMap { $0.flatMap { try? JSONParser.parse($0) } }
        for field in fields {
            for key in Set(records.compactMap { ScalarKey(field: field, of: $0) }) {
                try connection.run("""
                    INSERT INTO field_versions (collection, field, key, sequence) VALUES (?, ?, ?, ?)
                    ON CONFLICT (collection, field, key) DO UPDATE SET sequence = excluded.sequence
                    """, .text(collection), .text(field.description), .text(key.text), .int(sequence))
            }
        }
    }

    public func records(in collection: String, field: FieldPath, equals value: JSONValue) throws(StoreError) -> [StoredRecord] {
        let bound: SQLiteValue
        switch value {
        // json_extract reads a string only up to a U+0000 in it: such a value matches by every record.
        case .string(let text) where !text.utf8.contains(0): bound = .text(text)
        // json_extract reads a number as a double: past 2^53 one with a fraction's form
        // (`9007199254740993.0`) rounds to another integer, so those are checked by the caller.
        case .int(let number) where number.magnitude <= 1 << 53: bound = .int(number)
        case .bool(let flag): bound = .int(flag ? 1 : 0)
        default: bound = .null
        }
        guard let expression = Self.fieldExpression(field), !bound.isNull else {
            // Paths SQLite cannot name, non-integer numbers and strings holding U+0000: every
            // record, checked by the caller.
            return try allRecords(in: collection)
        }
        // SQLite's planner, without statistics (no ANALYZE), prefers the primary key's
        // `collection` prefix over the expression index, which reads the whole collection: a
        // prepared field names its index.
        // The partial index serves only a query that names its collection as written.
        let prepared = indexed.withLock { $0[collection]?.contains(field) ?? false }
        let query = prepared
            ? "SELECT id, json FROM records INDEXED BY \(Self.indexName(field, in: collection)) WHERE collection = \(Self.literal(collection)) AND \(expression) = ?2 ORDER BY id"
            : "SELECT id, json FROM records WHERE collection = ?1 AND \(expression) = ?2 ORDER BY id"
        return try reader.withLock { connection throws(StoreError) in
            var result: [StoredRecord] = []
            try connection.query(query, .text(collection), bound) { row throws(StoreError) in
                result.append(StoredRecord(id: try row.text(0), json: try row.blob(1)))
            }
            return result
        }
    }

    public func commit(groups: [[RecordWrite]], previousIn: Set<String>, deliveries: DeliveryPlanner) throws(StoreError) -> [CommitResult] {
        let fields = self.fields.withLock { $0 }
        let previousIn = previousIn.union(fields.keys)
        return try writing { connection throws(StoreError) -> [CommitResult] in
            var sequence = try Self.sequence(on: connection)
            var results: [CommitResult] = []
            for writes in groups {
                let result = try apply(writes, sequence: sequence + 1, previousIn: previousIn, fields: fields, on: connection)
                sequence = result.sequence
                results.append(result)
            }
            for request in DeliveryRequest.coalesced(deliveries(groups, results)) {
                try Self.record(request, on: connection)
            }
            try connection.run("UPDATE state SET value = ? WHERE key = 'sequence'", .int(sequence))
            return results
        }
    }

    /// Runs `body` in one transaction of the write connection, committed only while the path
    /// still names the database file this store opened, and its log the log it opened; else
    /// throws `cannot-open` (a storage fault: `503`, nothing of `body` kept). Every write goes
    /// through here: records, views, definitions, the outbox.
    ///
    /// A log deleted under the store still holds the commits made before, which the next start
    /// would not see (SQLite goes on using the deleted file): they are copied into the database
    /// file at once (a full checkpoint), so that every write acknowledged before survives even a
    /// `kill -9`. Writes stay refused until a restart makes a new log.
    ///
    /// A write waits up to SQLite's busy timeout (5 s) while another connection holds the
    /// database (another process: the store's own lock file keeps out a second server). Once one
    /// has waited that out in vain, the writes after it wait only ``heldDatabaseWait``, until one
    /// goes through: writes queued behind the first (each a turn of the writer thread: a view
    /// write, a definition change, the next batch of record writes) are refused in turn within
    /// moments instead of each waiting its own 5 s (six of them took 30 s).
    func writing<T: Sendable>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try writeLock.withLock { held throws(StoreError) -> T in
            let connection = writer
            do throws(StoreError) {
                let result = try connection.transaction { () throws(StoreError) -> T in
                    let result = try body(connection)
                    if let file, FileIdentity(path: path) != file {
                        throw StoreError(.sqlite(extendedCode: SQLITE_CANTOPEN),
                                         "the database file \(path) was deleted or replaced while the store had it open")
                    }
                    if let logFile, FileIdentity(path: path + "-wal") != logFile {
                        throw StoreError(.sqlite(extendedCode: SQLITE_CANTOPEN),
                                         "the write-ahead log \(path)-wal was deleted or replaced while the store had it open")
                    }
                    return result
                }
                if held {
                    held = false
                    try? connection.setBusyTimeout(milliseconds: SQLiteConnection.busyTimeoutMilliseconds)
                }
                return result
            } catch {
                if error.fault == .busy, !held {
                    held = true
                    try? connection.setBusyTimeout(milliseconds: Self.heldDatabaseWait)
                }
                if let told = saveWhatIsGone(connection, stopping: false) {
                    throw StoreError(error.cause, "\(error.message); \(told.text)", mustBeTold: told.first)
                }
                throw error
            }
        }
    }

    /// Bytes the write-ahead log is cut back to when it starts over (`journal_size_limit`): 64 MiB,
    /// far above what the checkpoints let it reach in use (a few MiB), so only a spike is cut.
    static let logSizeLimit = 64 << 20

    /// How long a write waits, in milliseconds, while the write before it found the database
    /// held and waited out the busy timeout in vain (``writing(_:)``).
    static let heldDatabaseWait: Int32 = 100

    /// One group of a commit under change number `sequence` (unused when nothing changes).
    private func apply(_ writes: [RecordWrite], sequence: Int64, previousIn: Set<String>, fields: [String: [FieldPath]],
                       on connection: SQLiteConnection) throws(StoreError) -> CommitResult {
        var existed: [Bool] = []
        existed.reserveCapacity(writes.count)
        var previous: [[UInt8]?] = []
        var touched: Set<String> = []
        for write in writes {
            switch write {
            case .upsert(let collection, let id, let json) where previousIn.contains(collection):
                var old: [UInt8]?
                try connection.query("SELECT json FROM records WHERE collection = ? AND id = ?", .text(collection), .text(id)) {
                    row throws(StoreError) in old = try row.blob(0)
                }
                previous.append(old)
                existed.append(old != nil)
                if old == nil {
                    try connection.run("INSERT INTO records (collection, id, json, sequence) VALUES (?, ?, ?, ?)",
                                       .text(collection), .text(id), .blob(json), .int(sequence))
                } else {
                    try connection.run("UPDATE records SET json = ?, sequence = ? WHERE collection = ? AND id = ?",
                                       .blob(json), .int(sequence), .text(collection), .text(id))
                }
                if let tracked = fields[collection] {
                    try touchFields(tracked, collection: collection, old: old, new: json, sequence: sequence, on: connection)
                }
                touched.insert(collection)
            case .upsert(let collection, let id, let json):
                previous.append(nil)
                // One statement for the usual case, two on a miss; together they also tell
                // whether the record existed. A lone write (a PUT) is usually an edit: update
                // first. A batch is usually an import of new records: insert first.
                if writes.count == 1 {
                    let updated = try connection.run("UPDATE records SET json = ?, sequence = ? WHERE collection = ? AND id = ?",
                                                     .blob(json), .int(sequence), .text(collection), .text(id)) > 0
                    existed.append(updated)
                    if !updated {
                        try connection.run("INSERT INTO records (collection, id, json, sequence) VALUES (?, ?, ?, ?)",
                                           .text(collection), .text(id), .blob(json), .int(sequence))
                    }
                } else {
                    let inserted = try connection.run("INSERT OR IGNORE INTO records (collection, id, json, sequence) VALUES (?, ?, ?, ?)",
                                                      .text(collection), .text(id), .blob(json), .int(sequence)) > 0
                    existed.append(!inserted)
                    if !inserted {
                        try connection.run("UPDATE records SET json = ?, sequence = ? WHERE collection = ? AND id = ?",
                                           .blob(json), .int(sequence), .text(collection), .text(id))
                    }
                }
                touched.insert(collection)
            case .delete(let collection, let id):
                let deleted: Bool
                if previousIn.contains(collection) {
                    var old: [UInt8]?
                    try connection.query("DELETE FROM records WHERE collection = ? AND id = ? RETURNING json", .text(collection), .text(id)) {
                        row throws(StoreError) in old = try row.blob(0)
                    }
                    previous.append(old)
                    deleted = old != nil
                    if let tracked = fields[collection], old != nil {
                        try touchFields(tracked, collection: collection, old: old, new: nil, sequence: sequence, on: connection)
                    }
                } else {
                    deleted = try connection.run("DELETE FROM records WHERE collection = ? AND id = ?", .text(collection), .text(id)) > 0
                    previous.append(nil)
                }
                existed.append(deleted)
                guard deleted else { continue }
                touched.insert(collection)
            }
        }
        guard !touched.isEmpty else {
            return CommitResult(sequence: sequence - 1, existed: existed, changedAnything: false, previous: previous)
        }
        for collection in touched {
            try connection.run("""
                INSERT INTO collections (name, sequence) VALUES (?, ?)
                ON CONFLICT (name) DO UPDATE SET sequence = excluded.sequence
                """, .text(collection), .int(sequence))
        }
        return CommitResult(sequence: sequence, existed: existed, changedAnything: true, previous: previous)
    }

    /// Before a graceful close: when the database file was deleted or replaced and no write came
    /// since to notice it, its contents (every acknowledged write) are saved as a write would
    /// save them (``rescue(_:again:)``) while the connections still see them — closing them lost
    /// it all without a trace (a copy a write tried and failed is tried again). Likewise a log
    /// deleted under the store: its commits are copied into the database file, or the answer
    /// says they could not be (``saveWhatIsGone(_:stopping:)``). Returns what to tell the
    /// operator; nil when the files are in place (or were rescued already).
    public func rescueIfGone() -> String? {
        writeLock.withLock { _ in saveWhatIsGone(writer, stopping: true)?.text }
    }

    public func close() {
        writeLock.withLock { _ in
            checkpointer.stop(on: writer)
            writer.close()
        }
        reader.withLock { $0.close() }
        lock.release()
    }
}
