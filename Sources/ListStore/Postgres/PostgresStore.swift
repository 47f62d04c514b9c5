import ListModel
import Locking
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The store for several instances: records, views and the change log in PostgreSQL, over libpq.
///
/// **One sequence, commit order is version order.** A commit's first statement locks the one
/// `state` row (`SELECT … FOR UPDATE`), then numbers its groups from the value it reads, writes,
/// stores the last number and commits. The row lock is held until COMMIT, so a second writer —
/// on this instance or any other — blocks at that first statement until the first commits (or
/// rolls back), and then reads the value the first stored (READ COMMITTED re-reads a locked row
/// once its locker is done). So numbers are handed out in the order commits complete, without
/// gaps, and a transaction that sees version V committed also sees every version below it
/// (PostgreSQL makes a transaction visible before it releases its locks). The cost is that
/// writers are serialised, as SQLite's single writer is; group commit keeps throughput by
/// putting many groups, each with its own number, in one transaction and one WAL flush.
///
/// Every write is also appended to the change log (`changes`) in the same transaction, so the
/// log holds exactly the committed writes, in version order; ``changes(after:limit:)`` reads it.
///
/// Writes go through one connection and reads through another, each behind its own lock, so
/// reads never wait for a commit's flush.
public final class PostgresStore: RecordStore, ChangeLog, @unchecked Sendable {
    private let writer: PostgresConnection
    private let reader: PostgresConnection
    /// Held while the write connection is in use; true while the last write found a lock held
    /// past the lock timeout (see ``writing(_:)``).
    private let writeLock = Locked(false)
    /// Held while the read connection is in use.
    private let readLock = Locked(())
    /// How many commits' worth of change log to keep.
    private let changeLogLimit: Int64 = 100_000

    /// Connects to the database at `url` (`postgresql://user@host/database`) and migrates its schema.
    public init(url: String) throws(StoreError) {
        do {
            let writeConnection = try PostgresConnection(url: url, sessionSetup: Self.sessionSetup)
            try Self.migrate(writeConnection)
            writer = writeConnection
            reader = try PostgresConnection(url: url, sessionSetup: Self.sessionSetup)
        } catch {
            throw error.storeError
        }
    }

    /// Runs `body` with the write connection; PostgreSQL errors become store errors.
    ///
    /// Once a write has waited out the lock timeout in vain (`55P03`), the writes after it wait
    /// only ``heldLockWaitMilliseconds``, until one goes through: those queued behind it are
    /// refused in turn within moments, not each after its own 5 s (eight queued writes took 5 to
    /// 15 s each), as ``SQLiteStore``'s writes do behind a busy database.
    func writing<T: Sendable>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(StoreError) -> T {
        do {
            return try writeLock.withLock { held throws(PostgresError) -> T in
                do throws(PostgresError) {
                    let result = try body(writer)
                    if held {
                        held = false
                        try? writer.executeScript(Self.sessionSetup)
                    }
                    return result
                } catch {
                    if error.sqlState == "55P03", !held {
                        held = true
                        try? writer.executeScript("SET lock_timeout = \(Self.heldLockWaitMilliseconds)")
                    }
                    throw error
                }
            }
        } catch {
            throw error.storeError
        }
    }

    /// Runs `body` with the read connection; PostgreSQL errors become store errors.
    func reading<T: Sendable>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(StoreError) -> T {
        do {
            // Inside ``readConsistently(_:)`` on this thread: the lock is already held.
            if consistentReader.load(ordering: .acquiring) == Self.currentThread { return try body(reader) }
            return try readLock.withLock { _ throws(PostgresError) -> T in try body(reader) }
        } catch {
            throw error.storeError
        }
    }

    /// The thread inside ``readConsistently(_:)`` (0: none).
    private let consistentReader = Atomic<UInt>(0)

    private static var currentThread: UInt { UInt(pthread_self()) }

    /// Runs `body`'s reads in one `REPEATABLE READ` transaction of the read connection, so they
    /// all see one committed state of the database, however many commits other instances make
    /// meanwhile (a list built at start, a partition built with its version).
    public func readConsistently<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        if consistentReader.load(ordering: .acquiring) == Self.currentThread { return try body() }
        return try readLock.withLock { _ throws(StoreError) -> T in
            do throws(PostgresError) {
                try reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            } catch {
                throw error.storeError
            }
            consistentReader.store(Self.currentThread, ordering: .releasing)
            defer { consistentReader.store(0, ordering: .releasing) }
            let result: T
            do throws(StoreError) {
                result = try body()
            } catch {
                _ = try? reader.execute("ROLLBACK")
                throw error
            }
            do throws(PostgresError) {
                try reader.execute("COMMIT")
            } catch {
                throw error.storeError
            }
            return result
        }
    }

    public func lastSequence() throws(StoreError) -> Int64 {
        try reading { connection throws(PostgresError) in
            let result = try connection.execute("SELECT value FROM state WHERE key = 'sequence'")
            return result.rowCount > 0 ? try result.int(0, 0) : 0
        }
    }

    public func collectionSequences() throws(StoreError) -> [String: Int64] {
        try reading { connection throws(PostgresError) in
            let result = try connection.execute("SELECT name, sequence FROM collections")
            var sequences: [String: Int64] = [:]
            for row in 0..<result.rowCount { sequences[result.string(row, 0)] = try result.int(row, 1) }
            return sequences
        }
    }

    public func allRecords(in collection: String) throws(StoreError) -> [StoredRecord] {
        try reading { connection throws(PostgresError) in
            Self.records(try connection.execute("SELECT id, json FROM records WHERE collection = $1 ORDER BY id", .text(collection)))
        }
    }

    public func record(in collection: String, id: String) throws(StoreError) -> StoredRecord? {
        try reading { connection throws(PostgresError) in
            let result = try connection.execute("SELECT json, sequence FROM records WHERE collection = $1 AND id = $2",
                                                .text(collection), .text(id))
            return result.rowCount > 0 ? StoredRecord(id: id, json: result.bytes(0, 0), version: try result.int(0, 1)) : nil
        }
    }

    /// One query for all the ids (not a round trip per id).
    public func records(in collection: String, ids: [String]) throws(StoreError) -> [StoredRecord] {
        try reading { connection throws(PostgresError) in
            let result = try connection.execute("SELECT id, json, sequence FROM records WHERE collection = $1 AND id = ANY($2) ORDER BY id",
                                                .text(collection), PostgresArray.text(Array(Set(ids))))
            return try (0..<result.rowCount).map { row throws(PostgresError) in
                StoredRecord(id: result.string(row, 0), json: result.bytes(row, 1), version: try result.int(row, 2))
            }
        }
    }

    public func records(in collection: String, after afterID: String?, limit: Int) throws(StoreError) -> [StoredRecord] {
        try reading { connection throws(PostgresError) in
            Self.records(try connection.execute(
                "SELECT id, json FROM records WHERE collection = $1 AND id > $2 ORDER BY id LIMIT $3::bigint",
                .text(collection), .text(afterID ?? ""), .int(Int64(min(limit, Int(Int64.max))))))
        }
    }

    private static func records(_ result: PostgresResult) -> [StoredRecord] {
        (0..<result.rowCount).map { StoredRecord(id: result.string($0, 0), json: result.bytes($0, 1)) }
    }

    /// Creates an expression index on `(collection, json #>> '{path}')` and starts keeping the
    /// versions of the field's values (``fieldVersion(_:in:key:)``), once; concurrent instances
    /// serialise on a transaction-scoped advisory lock so none fails on the race.
    public func prepareField(_ field: FieldPath, in collection: String) throws(StoreError) {
        var hash = FNV1a()
        hash.combine(field.description.utf8)
        let name = "records_field_" + String(hash.value, radix: 16)
        try writing { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) in
                // Another instance may be building this index (as long as that takes): wait for it.
                try connection.executeScript("SET LOCAL lock_timeout = 0")
                try connection.execute("SELECT pg_advisory_xact_lock($1::bigint)", .int(PostgresSchema.indexLock))
                try connection.executeScript("SET LOCAL lock_timeout = \(Self.lockTimeoutMilliseconds)")
                // The sequence row before the index: a commit takes it before writing records, so
                // taking them in the same order cannot deadlock with one.
                try connection.execute("SELECT value FROM state WHERE key = 'sequence' FOR UPDATE")
                try connection.executeScript("CREATE INDEX IF NOT EXISTS \(name) ON records (collection, (\(Self.fieldExpression(field))))")
                try connection.executeScript(
                    "CREATE INDEX IF NOT EXISTS \(name)_numbers ON records (collection) WHERE \(Self.writtenAsNoInteger(field))")
                try Self.trackField(field, in: collection, on: connection)
            }
        }
    }

    /// Matches the text of the scalar at `field` (`#>>`: strings unquoted, numbers and booleans
    /// as written), through the index ``prepareField(_:in:)`` made. Strings and numbers written
    /// alike (`"7"` and `7`) both match. An integer also matches every number written in another
    /// form (`7.0`, `0.7e1`, `-0`), through the second, partial index: they equal it as JSON values,
    /// as the other stores find them (a partition built here missed them, though one kept in
    /// memory held them, at the same version and entity tag). Non-integer numbers, whose text may
    /// be written in many ways, match every record, as do strings the index cannot tell apart (see
    /// ``fieldExpression(_:)``). Callers check each record exactly.
    public func records(in collection: String, field: FieldPath, equals value: JSONValue) throws(StoreError) -> [StoredRecord] {
        let text: String
        switch value {
        case .string(let string) where !string.utf8.contains(0) && !string.contains(#"\u0000"#): text = string
        case .int(let number): text = String(number)
        case .bool(let flag): text = flag ? "true" : "false"
        default: return try allRecords(in: collection)
        }
        return try reading { connection throws(PostgresError) in
            let written = Self.records(try connection.execute(
                "SELECT id, json FROM records WHERE collection = $1 AND \(Self.fieldExpression(field)) = $2 ORDER BY id",
                .text(collection), .text(text)))
            guard case .int = value else { return written }
            let otherForms = Self.records(try connection.execute(
                "SELECT id, json FROM records WHERE collection = $1 AND \(Self.writtenAsNoInteger(field)) ORDER BY id",
                .text(collection)))
            guard !otherForms.isEmpty else { return written }
            var byID: [String: StoredRecord] = [:]
            for record in written + otherForms { byID[record.id] = record }
            return byID.values.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }   // by code points, as COLLATE "C"
        }
    }

    /// Whether the text at `field` is a JSON number not written as an integer's digits (`7.0`,
    /// `0.7e1`, `-0`): the predicate of the partial index ``prepareField(_:in:)`` makes and of the
    /// query that reads it, spelled identically so the planner matches them. A string holding
    /// such text (`"7.0"`) passes too; callers check each record exactly.
    static func writtenAsNoInteger(_ field: FieldPath) -> String {
        let text = fieldExpression(field)
        return #"(\#(text)) ~ '^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$' AND (\#(text)) !~ '^(0|-?[1-9][0-9]*)$'"#
    }

    /// The text at `field` of a record: `#>> '{"a","b"}'`, the path as an array literal, each member
    /// name double-quoted for the array syntax and the whole quoted as an SQL string, so any member
    /// name is safe. The index and the query spell it identically, which is how the planner
    /// matches them.
    ///
    /// PostgreSQL refuses to read a field (`#>>`) of a `json` text holding the escape `\u0000`
    /// anywhere, which in an index would refuse the write itself; so the escape is replaced by
    /// `\ufffd` first. Only a value holding U+0000, or the six characters `\u0000`, can read
    /// differently, and ``records(in:field:equals:)`` answers those with every record.
    static func fieldExpression(_ field: FieldPath) -> String {
        let elements = field.components.map { component in
            "\"" + component.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        let literal = "{" + elements.joined(separator: ",") + "}"
        return #"replace(json::text, '\u0000', '\ufffd')::json #>> '"# + literal.replacingOccurrences(of: "'", with: "''") + "'::text[]"
    }

    public func commit(groups: [[RecordWrite]], previousIn: Set<String>, deliveries: DeliveryPlanner) throws(StoreError) -> [CommitResult] {
        try commit(previousIn: previousIn, deliveries: deliveries) { _ throws(StoreError) in groups }.map { $0! }
    }

    /// `prepare` runs inside the commit's transaction, once it holds the sequence row lock, so no
    /// commit of any instance falls between its look-ups and the writes.
    public func commit(previousIn: Set<String>, deliveries: DeliveryPlanner,
                       prepare: (RecordLookup) throws(StoreError) -> [[RecordWrite]?]) throws(StoreError) -> [CommitResult?] {
        var refusal: StoreError?
        do throws(StoreError) {
            return try writing { connection throws(PostgresError) -> [CommitResult?] in
                try connection.transaction { () throws(PostgresError) -> [CommitResult?] in
                    // The row lock that orders commits: held until this transaction ends.
                    let current = try connection.execute("SELECT value FROM state WHERE key = 'sequence' FOR UPDATE")
                    guard current.rowCount == 1 else { throw PostgresError(sqlState: "XX000", message: "the sequence row is missing") }
                    let first = try current.int(0, 0)
                    let groups: [[RecordWrite]?]
                    do throws(StoreError) {
                        groups = try prepare { collection, id throws(StoreError) in
                            do throws(PostgresError) {
                                let result = try connection.execute("SELECT json, sequence FROM records WHERE collection = $1 AND id = $2",
                                                                    .text(collection), .text(id))
                                return result.rowCount > 0 ? StoredRecord(id: id, json: result.bytes(0, 0), version: try result.int(0, 1)) : nil
                            } catch {
                                throw error.storeError
                            }
                        }
                    } catch {
                        refusal = error
                        throw PostgresError(sqlState: "XX000", message: "the conditions could not be checked")
                    }
                    let chosen = groups.compactMap { $0 }
                    let results = try commitLocked(chosen, previousIn: previousIn, first: first, on: connection)
                    for request in DeliveryRequest.coalesced(deliveries(chosen, results)) {
                        try Self.record(request, on: connection)
                    }
                    var committed = results.makeIterator()
                    return groups.map { $0 == nil ? nil : committed.next() }
                }
            }
        } catch {
            throw refusal ?? error
        }
    }

    /// The writes of a commit, its sequence row lock held (`first`: the last number before it).
    private func commitLocked(_ groups: [[RecordWrite]], previousIn: Set<String>, first: Int64,
                              on connection: PostgresConnection) throws(PostgresError) -> [CommitResult] {
        guard !groups.isEmpty else { return [] }
        let fields = try Self.trackedFields(on: connection)
        let previousIn = previousIn.union(fields.keys)
        var results: [CommitResult]
        if let upserts = Self.distinctUpserts(groups) {
            results = try applyUpserts(groups, upserts, after: first, previousIn: previousIn, on: connection)
        } else {
            results = []
            results.reserveCapacity(groups.count)
            var next = first + 1
            for writes in groups {
                let result = try apply(writes, sequence: next, previousIn: previousIn, on: connection)
                if result.changedAnything { next += 1 }
                results.append(result)
            }
        }
        let sequence = results.last?.sequence ?? first
        var touched: [String: Int64] = [:]
        for (writes, result) in zip(groups, results) where result.changedAnything {
            // Upserts always change their collection; deletes only when the record existed.
            for (write, existed) in zip(writes, result.existed) {
                if case .delete = write, !existed { continue }
                touched[write.targetCollection] = result.sequence
            }
        }
        guard sequence > first else { return results }
        try Self.moveFieldVersions(groups, results, fields: fields, on: connection)
        for (collection, last) in touched {
            try connection.execute("""
                INSERT INTO collections (name, sequence) VALUES ($1, $2::bigint)
                ON CONFLICT (name) DO UPDATE SET sequence = excluded.sequence
                """, .text(collection), .int(last))
        }
        try connection.execute("UPDATE state SET value = $1::bigint WHERE key = 'sequence'", .int(sequence))
        // Wakes the other instances once this commits (PostgreSQL delivers it at COMMIT).
        try Self.notify(sequence, on: connection)
        if sequence / 1_000 > first / 1_000 {
            try connection.execute("DELETE FROM changes WHERE sequence <= $1::bigint", .int(sequence - changeLogLimit))
        }
        return results
    }

    /// One group of a commit under change number `sequence` (unused when nothing changes): each
    /// write is one statement that writes the record, logs it, and answers with the old JSON.
    private func apply(_ writes: [RecordWrite], sequence: Int64, previousIn: Set<String>,
                       on connection: PostgresConnection) throws(PostgresError) -> CommitResult {
        var existed: [Bool] = []
        var previous: [[UInt8]?] = []
        existed.reserveCapacity(writes.count)
        previous.reserveCapacity(writes.count)
        var position: Int64 = 0
        for write in writes {
            let wanted = previousIn.contains(write.targetCollection)
            let result: PostgresResult
            switch write {
            case .upsert(let collection, let id, let json):
                result = try connection.execute("""
                    WITH old AS (SELECT json FROM records WHERE collection = $1::text AND id = $2::text),
                         written AS (INSERT INTO records (collection, id, json, sequence) VALUES ($1::text, $2::text, $3::json, $4::bigint)
                                     ON CONFLICT (collection, id) DO UPDATE SET json = excluded.json, sequence = excluded.sequence),
                         logged AS (INSERT INTO changes (sequence, position, collection, id, json, previous)
                                    VALUES ($4::bigint, $5::integer, $1::text, $2::text, $3::json,
                                            \(wanted ? "(SELECT json FROM old)" : "NULL")))
                    SELECT \(wanted ? "json" : "NULL") FROM old
                    """, .text(collection), .text(id), .bytes(json), .int(sequence), .int(position))
                position += 1
            case .delete(let collection, let id):
                result = try connection.execute("""
                    WITH deleted AS (DELETE FROM records WHERE collection = $1::text AND id = $2::text RETURNING json),
                         logged AS (INSERT INTO changes (sequence, position, collection, id, json, previous)
                                    SELECT $3::bigint, $4::integer, $1::text, $2::text, NULL, \(wanted ? "json" : "NULL") FROM deleted)
                    SELECT \(wanted ? "json" : "NULL") FROM deleted
                    """, .text(collection), .text(id), .int(sequence), .int(position))
                if result.rowCount > 0 { position += 1 }
            }
            existed.append(result.rowCount > 0)
            previous.append(result.rowCount > 0 ? result.optionalBytes(0, 0) : nil)
        }
        guard position > 0 else {
            return CommitResult(sequence: sequence - 1, existed: existed, changedAnything: false, previous: previous)
        }
        return CommitResult(sequence: sequence, existed: existed, changedAnything: true, previous: previous)
    }

    public func close() {
        writeLock.withLock { _ in writer.close() }
        readLock.withLock { _ in reader.close() }
    }
}

extension PostgresStore {
    /// `url` with any password replaced by `***`, for logs: `postgresql://user:***@host/db`, and
    /// `password=***` in the query or in a `key=value` connection string.
    public static func redacting(_ url: String) -> String {
        var text = url
        if let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@"),
           let colon = text[scheme.upperBound..<at].firstIndex(of: ":") {
            text = String(text[...colon]) + "***" + String(text[at...])
        }
        var searchStart = text.startIndex
        while let key = text.range(of: "password=", range: searchStart..<text.endIndex) {
            let end = text[key.upperBound...].firstIndex { $0 == "&" || $0 == " " } ?? text.endIndex
            let offset = text.distance(from: text.startIndex, to: key.upperBound)
            text.replaceSubrange(key.upperBound..<end, with: "***")
            searchStart = text.index(text.startIndex, offsetBy: offset + 3)
        }
        return text
    }
}
