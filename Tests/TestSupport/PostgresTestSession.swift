import CPostgres

/// One libpq connection of a test's own, kept open between statements: to hold a lock or an open
/// transaction (`BEGIN; LOCK TABLE …`) while the server under test works, then let it go.
public final class PostgresTestSession {
    private var connection: OpaquePointer?

    /// Connects to `url`.
    public init(url: String) throws {
        guard let connection = PQconnectdb(url) else { throw PostgresTestDatabaseError(message: "out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresTestDatabaseError(message: "cannot connect to \(url): \(message)")
        }
        self.connection = connection
    }

    deinit { close() }

    /// Ends the session (and with it any transaction and lock it holds).
    public func close() {
        if let connection { PQfinish(connection) }
        connection = nil
    }

    /// Runs statements and returns the last one's rows, values as text.
    @discardableResult
    public func query(_ sql: String) throws -> [[String?]] {
        guard let connection else { throw PostgresTestDatabaseError(message: "the session is closed") }
        guard let result = PQexec(connection, sql) else {
            throw PostgresTestDatabaseError(message: String(cString: PQerrorMessage(connection)))
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw PostgresTestDatabaseError(message: "\(sql): \(String(cString: PQresultErrorMessage(result)))")
        }
        return (0..<PQntuples(result)).map { row in
            (0..<PQnfields(result)).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            }
        }
    }
}
