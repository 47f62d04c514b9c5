import CSQLite

/// One SQLite connection: open, execute, prepare. Not thread-safe; its owner serialises use.
/// Result codes become ``StoreError`` values carrying SQLite's message.
/// C API: https://www.sqlite.org/c3ref/intro.html
final class SQLiteConnection {
    private var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]

    init(path: String) throws(StoreError) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw StoreError("cannot open SQLite database \(path): \(message)")
        }
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit { close() }

    func close() {
        statements.values.forEach { $0.finalize() }
        statements = [:]
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs one or more statements that take no parameters.
    func execute(_ sql: String) throws(StoreError) {
        guard let handle else { throw StoreError("database is closed") }
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw StoreError("SQLite: \(message)")
        }
    }

    /// A prepared statement, cached by its text and reset for reuse.
    func statement(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        guard let handle else { throw StoreError("database is closed") }
        var raw: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil) == SQLITE_OK, let raw else {
            throw error()
        }
        let statement = SQLiteStatement(raw, connection: self)
        statements[sql] = statement
        return statement
    }

    /// Rows changed by the last statement.
    var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }

    func error() -> StoreError {
        StoreError("SQLite: " + (handle.map { String(cString: sqlite3_errmsg($0)) } ?? "database is closed"))
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try statement("BEGIN IMMEDIATE").run()
        do {
            let result = try body()
            try statement("COMMIT").run()
            return result
        } catch {
            try? statement("ROLLBACK").run()
            throw error
        }
    }
}

/// A prepared statement with 1-based parameter binding and 0-based column reading.
final class SQLiteStatement {
    private var raw: OpaquePointer?
    private unowned let connection: SQLiteConnection

    init(_ raw: OpaquePointer, connection: SQLiteConnection) {
        self.raw = raw
        self.connection = connection
    }

    func finalize() {
        sqlite3_finalize(raw)
        raw = nil
    }

    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    @discardableResult
    func bind(_ values: SQLiteValue...) -> SQLiteStatement {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .int(let number): sqlite3_bind_int64(raw, index, number)
            case .text(let text):
                var text = text
                text.withUTF8 { bytes in
                    _ = bytes.withMemoryRebound(to: CChar.self) {
                        sectional_sqlite_bind_text(raw, index, $0.baseAddress, Int32($0.count))
                    }
                }
            case .blob(let bytes):
                bytes.withUnsafeBytes { _ = sectional_sqlite_bind_blob(raw, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count)) }
            case .null: sqlite3_bind_null(raw, index)
            }
        }
        return self
    }

    /// Steps once: true when a row is ready to read, false when done.
    func step() throws(StoreError) -> Bool {
        switch sqlite3_step(raw) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error()
        }
    }

    /// Runs to completion, ignoring rows.
    func run() throws(StoreError) {
        while try step() {}
    }

    func int(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }

    func text(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(raw, column) else { return "" }
        let count = Int(sqlite3_column_bytes(raw, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? {
        sqlite3_column_type(raw, column) == SQLITE_NULL ? nil : text(column)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(raw, column))
        guard count > 0, let bytes = sqlite3_column_blob(raw, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
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
