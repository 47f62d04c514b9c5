/// A PostgreSQL failure: its SQLSTATE and message. The server's own codes come as sent
/// (`23505`, `40P01`, `57P01`, …); failures libpq or this module find take the code PostgreSQL
/// uses for the same thing (`08001` cannot connect, `08006` connection lost, `22021` a NUL in a
/// text parameter, `XX000` an answer that makes no sense). A store closed on purpose, or a schema
/// newer than this build, are not SQL failures and have no code.
/// Codes: https://www.postgresql.org/docs/current/errcodes-appendix.html
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE; nil for a closed store or an incompatible schema.
    public let sqlState: String?
    public let message: String
    private let incompatible: Bool
    /// The connection was lost while `COMMIT` was in flight: the transaction may have been
    /// committed or not, and nothing here can tell.
    private(set) var commitUnknown = false

    public init(sqlState: String, message: String) {
        self.sqlState = sqlState
        self.message = message
        incompatible = false
    }

    /// The connection was closed by its owner.
    init(closed message: String) {
        sqlState = nil
        self.message = message
        incompatible = false
    }

    /// The database holds what this build cannot work with.
    init(incompatible message: String) {
        sqlState = nil
        self.message = message
        incompatible = true
    }

    /// This error met while committing: a lost connection (SQLSTATE class 08) leaves the
    /// outcome unknown.
    func atCommit() -> PostgresError {
        guard sqlState?.hasPrefix("08") == true else { return self }
        var error = PostgresError(sqlState: sqlState ?? "08006", message: "\(message) (while committing: the outcome is unknown)")
        error.commitUnknown = true
        return error
    }

    /// `PostgreSQL [SQLSTATE 23505]: duplicate key value …`.
    public var description: String {
        "PostgreSQL" + (sqlState.map { " [SQLSTATE \($0)]" } ?? "") + ": " + message
    }

    /// The store error the service sees: the SQLSTATE as its cause.
    var storeError: StoreError {
        if let sqlState { return StoreError(.postgres(sqlState: sqlState), message, mayHaveCommitted: commitUnknown) }
        return StoreError(incompatible ? .incompatible : .closed, message)
    }
}
