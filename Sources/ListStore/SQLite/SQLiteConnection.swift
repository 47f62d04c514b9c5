import CSQLite

/// One SQLite connection: open, run statements, transactions. Not thread-safe; its owner
/// serialises use.
///
/// Every result code SQLite returns is checked; a failure becomes a ``StoreError`` carrying the
/// extended result code. A statement is reset as soon as its use ends, failed or not, so no
/// statement stays pending after an error and a failed transaction can always be rolled back.
/// C API: https://www.sqlite.org/c3ref/intro.html
final class SQLiteConnection {
    private var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens the database at `path`: read-write, created when missing unless `readOnly`
    /// (then it must exist).
    init(path: String, readOnly: Bool = false) throws(StoreError) {
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = handle.map { Self.error(sqlite3_extended_errcode($0), $0) }
                ?? StoreError(.sqlite(extendedCode: code), "out of memory")
            sqlite3_close_v2(handle)
            self.handle = nil
            throw StoreError(error.cause, "cannot open SQLite database \(path): \(error.message)")
        }
        do {
            try check(sqlite3_extended_result_codes(handle, 1))
            try check(sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds))
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// How long a statement waits for a lock another connection holds before failing with
    /// `SQLITE_BUSY`: 5 s.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    /// Sets how long a statement waits for a lock another connection holds.
    func setBusyTimeout(milliseconds: Int32) throws(StoreError) {
        guard let handle else { throw StoreError(.closed, "database is closed") }
        try check(sqlite3_busy_timeout(handle, milliseconds))
    }

    /// The raw handle, lent to `body` (for the backup API).
    func withHandle<T>(_ body: (OpaquePointer) throws(StoreError) -> T) throws(StoreError) -> T {
        guard let handle else { throw StoreError(.closed, "database is closed") }
        return try body(handle)
    }

    /// Finalizes every statement and closes. `sqlite3_finalize` only repeats a statement's last
    /// failure (already reported), and `sqlite3_close_v2` always succeeds (it defers the close
    /// until the last statement is gone), so neither result is an error here.
    func close() {
        statements.values.forEach { $0.finalize() }
        statements = [:]
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs one or more statements that take no parameters and return no rows.
    func execute(_ sql: String) throws(StoreError) {
        guard let handle else { throw StoreError(.closed, "database is closed") }
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            throw StoreError(.sqlite(extendedCode: sqlite3_extended_errcode(handle)), text)
        }
    }

    /// Runs `sql` with `values` bound, to its end, ignoring rows; returns the rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: SQLiteValue...) throws(StoreError) -> Int {
        try using(sql, values) { statement throws(StoreError) in
            while try statement.step() {}
            return handle.map { Int(sqlite3_changes($0)) } ?? 0
        }
    }

    /// Runs a query with `values` bound and hands each result row to `row` (read its columns
    /// there; the row is gone when `row` returns).
    func query(_ sql: String, _ values: SQLiteValue..., row: (SQLiteStatement) throws(StoreError) -> Void) throws(StoreError) {
        try using(sql, values) { statement throws(StoreError) in
            while try statement.step() { try row(statement) }
        }
    }

    /// The cached statement for `sql`, bound to `values`, lent to `body`, then reset: checked
    /// when `body` succeeded; after a failure the reset only repeats it.
    private func using<T>(_ sql: String, _ values: [SQLiteValue], _ body: (SQLiteStatement) throws(StoreError) -> T) throws(StoreError) -> T {
        let statement = try prepared(sql)
        do {
            try statement.bind(values)
            let result = try body(statement)
            try statement.reset()
            return result
        } catch {
            statement.resetAfterFailure()
            throw error
        }
    }

    /// A prepared statement, cached by its text.
    private func prepared(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        guard let handle else { throw StoreError(.closed, "database is closed") }
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else {
            sqlite3_finalize(raw)
            throw Self.error(code, handle)
        }
        let statement = SQLiteStatement(raw)
        statements[sql] = statement
        return statement
    }

    /// Whether a transaction is open (SQLite is not in autocommit mode).
    var inTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// After some failures (a full disk, an I/O error, no memory) SQLite has already rolled the
    /// transaction back by itself (https://www.sqlite.org/lang_transaction.html, "Response To
    /// Errors Within A Transaction"), so a transaction is only rolled back while still open. If
    /// that rollback fails too, the next transaction rolls back before it begins, so one fault
    /// never leaves the connection stuck in a transaction.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        if inTransaction { try run("ROLLBACK") }
        try run("BEGIN IMMEDIATE")
        do throws(StoreError) {
            let result = try body()
            do throws(StoreError) {
                try run("COMMIT")
            } catch {
                throw Self.failedCommit(error)
            }
            return result
        } catch {
            // The first failure is the one to report; a failed rollback is retried (above).
            if inTransaction { _ = try? run("ROLLBACK") }
            throw error
        }
    }

    /// The error of a failed `COMMIT`. In WAL mode SQLite writes the transaction's frames, its
    /// commit frame too, before it syncs the log: an I/O error from there on (`SQLITE_IOERR_FSYNC`,
    /// say) leaves frames that the next open recovers as committed, so the write may come back
    /// after a restart though it was refused (``StoreError/mayHaveCommitted``).
    static func failedCommit(_ error: StoreError) -> StoreError {
        guard case .sqlite(let code) = error.cause, code & 0xFF == SQLITE_IOERR else { return error }
        return StoreError(error.cause, error.message, mayHaveCommitted: true, mustBeTold: error.mustBeTold)
    }

    /// Throws unless `code` is `SQLITE_OK`.
    private func check(_ code: Int32) throws(StoreError) {
        guard code != SQLITE_OK else { return }
        guard let handle else { throw StoreError(.closed, "database is closed") }
        throw Self.error(code, handle)
    }

    /// The error for `code` with the connection's message.
    static func error(_ code: Int32, _ handle: OpaquePointer) -> StoreError {
        // A step reports the primary code when the connection's extended code says more.
        let extended = sqlite3_extended_errcode(handle)
        let cause = extended & 0xFF == code & 0xFF ? extended : code
        return StoreError(.sqlite(extendedCode: cause), String(cString: sqlite3_errmsg(handle)))
    }
}

/// A prepared statement with 1-based parameter binding and 0-based column reading. Used only
/// through ``SQLiteConnection/run(_:_:)`` and ``SQLiteConnection/query(_:_:row:)``, which bind,
/// step and reset it.
final class SQLiteStatement {
    private var raw: OpaquePointer?

    init(_ raw: OpaquePointer) { self.raw = raw }

    func finalize() {
        sqlite3_finalize(raw)
        raw = nil
    }

    private var handle: OpaquePointer? { raw.flatMap { sqlite3_db_handle($0) } }

    private func check(_ code: Int32) throws(StoreError) {
        guard code != SQLITE_OK else { return }
        guard let handle else { throw StoreError(.closed, "database is closed") }
        throw SQLiteConnection.error(code, handle)
    }

    /// Binds every parameter, in order (exactly as many values as the statement has parameters).
    func bind(_ values: [SQLiteValue]) throws(StoreError) {
        guard let raw else { throw StoreError(.closed, "database is closed") }
        guard Int(sqlite3_bind_parameter_count(raw)) == values.count else {
            throw StoreError(.sqlite(extendedCode: SQLITE_RANGE),
                             "statement takes \(sqlite3_bind_parameter_count(raw)) parameters, given \(values.count)")
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .int(let number): code = sqlite3_bind_int64(raw, index, number)
            case .text(let text):
                var text = text
                code = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) {
                        sectional_sqlite_bind_text(raw, index, $0.baseAddress, Int32($0.count))
                    }
                }
            case .blob(let bytes):
                code = bytes.withUnsafeBytes {
                    sectional_sqlite_bind_blob(raw, index, $0.baseAddress, Int32($0.count))
                }
            case .null: code = sqlite3_bind_null(raw, index)
            }
            try check(code)
        }
    }

    /// Steps once: true when a row is ready to read, false when done.
    func step() throws(StoreError) -> Bool {
        let code = sqlite3_step(raw)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            guard let handle else { throw StoreError(.closed, "database is closed") }
            throw SQLiteConnection.error(code, handle)
        }
    }

    /// Resets after a successful use and drops the bound values (big blobs are copies).
    func reset() throws(StoreError) {
        try check(sqlite3_reset(raw))
        try check(sqlite3_clear_bindings(raw))
    }

    /// Resets after a failed step or bind: `sqlite3_reset` then repeats the failure already
    /// reported, so its result says nothing new; the statement is ready for its next use.
    func resetAfterFailure() {
        _ = sqlite3_reset(raw)
        _ = sqlite3_clear_bindings(raw)
    }

    func int(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }

    /// A text column; a NULL pointer with no `SQLITE_NOMEM` is an empty or NULL value.
    func text(_ column: Int32) throws(StoreError) -> String {
        guard let text = sqlite3_column_text(raw, column) else {
            try checkNoMemory()
            return ""
        }
        let count = Int(sqlite3_column_bytes(raw, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// A text column, nil for SQL NULL.
    func optionalText(_ column: Int32) throws(StoreError) -> String? {
        sqlite3_column_type(raw, column) == SQLITE_NULL ? nil : try text(column)
    }

    func blob(_ column: Int32) throws(StoreError) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(raw, column) else {
            try checkNoMemory()
            return []
        }
        let count = Int(sqlite3_column_bytes(raw, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Column accessors answer NULL both for a NULL (or empty) value and when out of memory;
    /// the connection's error code tells which.
    private func checkNoMemory() throws(StoreError) {
        guard let handle, sqlite3_errcode(handle) == SQLITE_NOMEM else { return }
        throw SQLiteConnection.error(SQLITE_NOMEM, handle)
    }
}

enum SQLiteValue {
    case int(Int64)
    case text(String)
    case blob([UInt8])
    case null

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
