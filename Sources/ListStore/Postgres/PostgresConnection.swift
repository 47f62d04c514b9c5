import CPostgres
#if canImport(Glibc)
import Foundation
import Glibc
#endif

/// One libpq connection: connect with a URL, execute statements with parameters, run
/// transactions. Not thread-safe; its owner serialises use (as ``SQLiteConnection``'s does).
///
/// Every answer's status is checked: anything but "command OK" or "rows" becomes a
/// ``PostgresError`` carrying the server's SQLSTATE and message. A connection found broken
/// before a statement (its session ended while idle, or a statement before failed on it) is
/// reset once (libpq reconnects with the same parameters); a statement never silently retries
/// after it was sent. A session the server refused a write in because it
/// is read-only (SQLSTATE `25006`: the database's `default_transaction_read_only`, which a session
/// takes once, at connect, or a hot standby) is reset too, before its next statement, so a
/// database made writable again — or a failover that the URL's `target_session_attrs` follows —
/// is found without a restart. Statements with parameters are prepared once per
/// connection and cached by their text (as ``SQLiteConnection`` caches its statements), so the
/// server parses and plans each only once.
/// C API: https://www.postgresql.org/docs/current/libpq.html
final class PostgresConnection {
    private var handle: OpaquePointer?
    /// Prepared statement names by SQL text; emptied when the connection is reset.
    private var prepared: [String: String] = [:]
    /// Statements every session of this connection starts with (its first and each after a reset).
    private let sessionSetup: String?
    /// The session must be replaced before the next statement (it was found read-only).
    private var stale = false
    /// Session advisory locks this connection holds (``PostgresStore/takeAdvisoryLock(_:on:)``).
    /// A session lost while it holds one is not replaced: the lock went with it, and going on in
    /// a new session would do without it what it guards (a second instance, waiting for it,
    /// seeded the same records too).
    var heldSessionLocks = 0

    /// What a connection does unless its URL says otherwise: give up connecting after 10 s, and
    /// find a database that went silent (a host gone without a reset, a black-holed failover
    /// address) within about 30 s — keep-alives while idle, and `tcp_user_timeout` for data sent
    /// and never acknowledged. libpq's own defaults wait for the kernel: some 2 minutes to
    /// connect, some 15 to give up on a statement in flight, while a request thread (and every
    /// write queued behind its lock) waited and `/readyz` said ready.
    static let defaults: [(String, String)] = [
        ("connect_timeout", "10"), ("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"),
        ("keepalives_count", "4"), ("tcp_user_timeout", "30000"),
    ]

    /// Connects with a `postgresql://` URL or a `key=value` connection string (over
    /// ``defaults``), then runs `sessionSetup` (e.g. `SET lock_timeout = …`), as it does again
    /// after every reset.
    init(url: String, sessionSetup: String? = nil) throws(PostgresError) {
        guard let connection = Self.connect(url) else {
            throw PostgresError(sqlState: "53200", message: "cannot connect: out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(sqlState: "08001", message: "cannot connect: \(message)")
        }
        // Notices ("relation already exists, skipping") are information, not failures: drop them
        // rather than let libpq print them on standard error.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        self.sessionSetup = sessionSetup
        do {
            try setUpSession(connection)
        } catch {
            PQfinish(connection)
            throw error
        }
        handle = connection
    }

    /// `PQconnectdbParams` with ``defaults`` first and the URL last, expanded (`expand_dbname`):
    /// libpq takes later settings over earlier ones, so the URL's own win. A default is also left
    /// out where the operator set it another way libpq reads (it takes a parameter given here
    /// over both): `PGCONNECT_TIMEOUT`, and a service file (`service=` in the URL, `PGSERVICE`),
    /// which may set any of them.
    private static func connect(_ url: String) -> OpaquePointer? {
        let environment = ProcessInfo.processInfo.environment
        let service = environment["PGSERVICE"] != nil || Self.names(url).contains("service")
        let chosen = service ? [] : defaults.filter { $0.0 != "connect_timeout" || environment["PGCONNECT_TIMEOUT"] == nil }
        let pairs = chosen + [("dbname", url)]
        var keys = pairs.map { strdup($0.0) }, values = pairs.map { strdup($0.1) }
        defer { (keys + values).forEach { free($0) } }
        keys.append(nil)
        values.append(nil)
        return keys.withUnsafeBufferPointer { k in
            values.withUnsafeBufferPointer { v in
                k.withMemoryRebound(to: UnsafePointer<CChar>?.self) { k in
                    v.withMemoryRebound(to: UnsafePointer<CChar>?.self) { v in PQconnectdbParams(k.baseAddress, v.baseAddress, 1) }
                }
            }
        }
    }

    /// The options a URL or connection string sets (`PQconninfoParse`); none when it cannot be read.
    private static func names(_ url: String) -> Set<String> {
        Set(Self.values(of: PQconninfoParse(url, nil)).keys)
    }

    /// The value of connection option `keyword` in use (`PQconninfo`), nil when unset.
    func option(_ keyword: String) -> String? {
        handle.flatMap { Self.values(of: PQconninfo($0))[keyword] }
    }

    /// The options set in a libpq option array (its keywords and values), which it frees.
    private static func values(of options: UnsafeMutablePointer<PQconninfoOption>?) -> [String: String] {
        guard let options else { return [:] }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let name = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: name)] = String(cString: value) }
            option += 1
        }
        return values
    }

    /// Runs ``sessionSetup`` on a new session.
    private func setUpSession(_ connection: OpaquePointer) throws(PostgresError) {
        guard let sessionSetup else { return }
        _ = try check(PQexec(connection, sessionSetup), on: connection)
    }

    deinit { close() }

    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Runs one statement, prepared on first use. Parameters are `$1`, `$2`, … in `sql`; their
    /// types are inferred by the server from where they are used (cast them where that is
    /// ambiguous). Statements made up on the fly (with names in them) go to ``executeScript(_:)``.
    @discardableResult
    func execute(_ sql: String, _ parameters: PostgresValue...) throws(PostgresError) -> PostgresResult {
        try execute(sql, parameters: parameters)
    }

    @discardableResult
    func execute(_ sql: String, parameters: [PostgresValue]) throws(PostgresError) -> PostgresResult {
        let connection = try open()
        let name = try statementName(sql, on: connection)
        // All parameter values in one buffer: text ends with a NUL, as libpq's text format wants;
        // bytes carry their length and travel in binary format.
        var buffer: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var nulls: [Bool] = []
        for parameter in parameters {
            offsets.append(buffer.count)
            var binary = false
            var isNull = false
            switch parameter {
            case .text(let text):
                guard !text.utf8.contains(0) else {
                    throw PostgresError(sqlState: "22021", message: "a text parameter holds a NUL character")
                }
                buffer.append(contentsOf: text.utf8)
            case .int(let number): buffer.append(contentsOf: String(number).utf8)
            case .bool(let flag): buffer.append(contentsOf: (flag ? "t" : "f").utf8)
            case .bytes(let bytes):
                buffer.append(contentsOf: bytes)
                binary = true
            case .null: isNull = true
            }
            // PostgreSQL takes no value of 1 GiB or more (and libpq's lengths are 32-bit).
            guard let length = Int32(exactly: buffer.count - offsets[offsets.count - 1]), length < 1 << 30 else {
                throw PostgresError(sqlState: "54000", message: "a parameter of \(buffer.count - offsets[offsets.count - 1]) bytes is more than PostgreSQL takes")
            }
            lengths.append(length)
            if !binary { buffer.append(0) }
            formats.append(binary ? 1 : 0)
            nulls.append(isNull)
        }
        let raw = buffer.withUnsafeBufferPointer { bytes in
            let base = bytes.baseAddress.map { UnsafeRawPointer($0) }
            let values: [UnsafePointer<CChar>?] = offsets.indices.map { index in
                nulls[index] ? nil : base.map { ($0 + offsets[index]).assumingMemoryBound(to: CChar.self) }
            }
            return PQexecPrepared(connection, name, Int32(parameters.count), values, lengths, formats, 0)
        }
        return try check(raw, on: connection)
    }

    /// The name `sql` is prepared under on this connection, preparing it the first time.
    private func statementName(_ sql: String, on connection: OpaquePointer) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count + 1)"
        _ = try check(PQprepare(connection, name, sql, 0, nil), on: connection)
        prepared[sql] = name
        return name
    }

    /// Runs one or more statements without parameters, unprepared (migrations, one-off statements).
    func executeScript(_ sql: String) throws(PostgresError) {
        let connection = try open()
        _ = try check(PQexec(connection, sql), on: connection)
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// `READ COMMITTED` whatever the database's `default_transaction_isolation`: the writers rely
    /// on it (a commit locks the `state` row and reads it again as committed by the instance it
    /// waited for; under `REPEATABLE READ` or `SERIALIZABLE` that wait ends in a serialization
    /// failure, a `503` for every write that met another instance's).
    func transaction<T>(_ body: () throws(PostgresError) -> T) throws(PostgresError) -> T {
        try execute("BEGIN ISOLATION LEVEL READ COMMITTED")
        let result: T
        do {
            result = try body()
        } catch {
            // A stale session is not used again: its reset (before the next statement, so the new
            // session takes the database's settings as they are then) ends the transaction.
            if !stale { _ = try? execute("ROLLBACK") }
            throw error
        }
        // A transaction that failed inside answers COMMIT with the tag ROLLBACK, not an error.
        let tag: String
        do {
            tag = try execute("COMMIT").commandStatus
        } catch {
            throw error.atCommit()
        }
        guard tag == "COMMIT" else {
            throw PostgresError(sqlState: "40000", message: "the transaction was rolled back (\(tag))")
        }
        return result
    }

    /// Waits up to `timeout` seconds for notifications (after `LISTEN`) and returns their payloads,
    /// empty on time-out. A broken connection throws (and is reset by the next statement).
    func notifications(waitingUpTo timeout: Double) throws(PostgresError) -> [String] {
        let connection = try open()
        var payloads = try drainNotifications(connection)
        guard payloads.isEmpty else { return payloads }
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { throw PostgresError(sqlState: "08006", message: "connection lost: no socket") }
        let ready = poll(&descriptor, 1, Int32(max(0, timeout) * 1000))
        guard ready > 0 else { return [] }
        payloads = try drainNotifications(connection)
        return payloads
    }

    /// Reads what the server sent and takes every notification received.
    private func drainNotifications(_ connection: OpaquePointer) throws(PostgresError) -> [String] {
        guard PQconsumeInput(connection) == 1 else {
            throw PostgresError(sqlState: "08006", message: "connection lost: \(Self.message(PQerrorMessage(connection)))")
        }
        var payloads: [String] = []
        while let notification = PQnotifies(connection) {
            payloads.append(String(cString: notification.pointee.extra))
            PQfreemem(notification)
        }
        return payloads
    }

    /// The live connection, reset once when libpq reports it broken or its session was found
    /// read-only; a reset session is set up again (``sessionSetup``).
    private func open() throws(PostgresError) -> OpaquePointer {
        guard let handle else { throw PostgresError(closed: "connection is closed") }
        if !stale, PQtransactionStatus(handle) == PQTRANS_IDLE { Self.readFarewell(handle) }
        if stale || PQstatus(handle) == CONNECTION_BAD {
            guard heldSessionLocks == 0 else {
                throw PostgresError(sqlState: "08006", message: "connection lost while holding a session lock")
            }
            prepared = [:]
            stale = true
            PQreset(handle)
            guard PQstatus(handle) == CONNECTION_OK else {
                throw PostgresError(sqlState: "08006", message: "connection lost: \(Self.message(PQerrorMessage(handle)))")
            }
            try setUpSession(handle)
            stale = false
        }
        return handle
    }

    /// Reads what an idle session's socket holds, if anything: a session the server ended while
    /// it idled (a restart, `pg_terminate_backend`) has sent its farewell and closed, and reading
    /// it marks the connection bad, so it is reset before the next statement instead of that
    /// statement failing (each instance's first write after a database restart was refused
    /// `503` while `/readyz` said ready). Only between transactions: a session lost inside one
    /// must fail its transaction, never go on in a new session. A `poll` with no wait when
    /// there is nothing to read.
    private static func readFarewell(_ connection: OpaquePointer) {
        // The farewell message, then the end of the stream: a read each (a few at most).
        for _ in 0..<4 {
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            guard descriptor.fd >= 0, poll(&descriptor, 1, 0) > 0, PQconsumeInput(connection) == 1 else { return }
        }
    }

    /// The result when its status is a success; otherwise the server's error, with its SQLSTATE.
    private func check(_ raw: OpaquePointer?, on connection: OpaquePointer) throws(PostgresError) -> PostgresResult {
        guard let raw else {
            throw PostgresError(sqlState: "08006", message: Self.message(PQerrorMessage(connection)))
        }
        let result = PostgresResult(raw)
        switch PQresultStatus(raw) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return result
        default:
            let state = PQresultErrorField(raw, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            var message = PQresultErrorField(raw, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
                ?? Self.message(PQresultErrorMessage(raw))
            if message.isEmpty { message = Self.message(PQerrorMessage(connection)) }
            // A read-only session stays read-only: only a new one reads the database's setting again.
            if state == Self.readOnlyTransaction { stale = true }
            // An error without a code comes from libpq itself: the connection failed mid-statement.
            throw PostgresError(sqlState: state ?? "08006", message: message)
        }
    }

    /// SQLSTATE `read_only_sql_transaction`: a write in a read-only transaction or on a standby.
    static let readOnlyTransaction = "25006"

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        let message = String(cString: text)
        return message.hasSuffix("\n") ? String(message.dropLast()) : message
    }
}
