/// A PostgreSQL failure: the server's SQLSTATE (`23505`, `40P01`, `57P01`, …) when it sent one,
/// and the message. Client-side failures (connection refused or lost, a parameter libpq cannot
/// carry) have no SQLSTATE. Codes: https://www.postgresql.org/docs/current/errcodes-appendix.html
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE, or nil for a failure on the client side.
    public let sqlState: String?
    public let message: String

    public init(sqlState: String?, message: String) {
        self.sqlState = sqlState
        self.message = message
    }

    /// `PostgreSQL [SQLSTATE 23505]: duplicate key value …`: the code stays in the store error's text.
    public var description: String {
        "PostgreSQL" + (sqlState.map { " [SQLSTATE \($0)]" } ?? "") + ": " + message
    }

    /// The store error the service sees, carrying this description.
    var storeError: StoreError { StoreError(description) }
}
