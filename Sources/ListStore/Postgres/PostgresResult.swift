import CPostgres

/// The rows of one statement's answer, in libpq's text format, read by 0-based row and column.
/// Owns the `PGresult` and clears it when it goes away.
/// C API: https://www.postgresql.org/docs/current/libpq-exec.html#LIBPQ-EXEC-SELECT-INFO
final class PostgresResult {
    private let raw: OpaquePointer

    /// Takes ownership of `raw`.
    init(_ raw: OpaquePointer) { self.raw = raw }

    deinit { PQclear(raw) }

    var rowCount: Int { Int(PQntuples(raw)) }

    /// The command tag, e.g. `INSERT 0 1` or `COMMIT`.
    var commandStatus: String { String(cString: PQcmdStatus(raw)) }

    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(raw, Int32(row), Int32(column)) == 1 }

    /// The value's bytes exactly as the server sent them (`json` comes back as stored).
    func bytes(_ row: Int, _ column: Int) -> [UInt8] {
        let count = Int(PQgetlength(raw, Int32(row), Int32(column)))
        guard count > 0, let value = PQgetvalue(raw, Int32(row), Int32(column)) else { return [] }
        return value.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }

    func optionalBytes(_ row: Int, _ column: Int) -> [UInt8]? { isNull(row, column) ? nil : bytes(row, column) }

    func string(_ row: Int, _ column: Int) -> String { String(decoding: bytes(row, column), as: UTF8.self) }

    func optionalString(_ row: Int, _ column: Int) -> String? { isNull(row, column) ? nil : string(row, column) }

    /// An integer column (`bigint`, `integer`); a value that is not one is an error, not 0.
    func int(_ row: Int, _ column: Int) throws(PostgresError) -> Int64 {
        let text = string(row, column)
        guard let number = Int64(text) else {
            throw PostgresError(sqlState: "XX000", message: "expected an integer in column \(column), got '\(text)'")
        }
        return number
    }

    func bool(_ row: Int, _ column: Int) -> Bool { string(row, column) == "t" }
}
