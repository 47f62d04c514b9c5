import CSQLite

/// A storage failure: its cause as the database reported it, typed, and the database's message.
///
/// ``fault`` tells a passing fault (a full disk, an I/O error, a busy, read-only or unreachable
/// database), which the service answers `503` and which clears by itself or by an operator's hand, from any
/// other failure (a bug, damaged data), which it answers `500`.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What the database said went wrong.
    public enum Cause: Sendable, Equatable {
        /// An SQLite extended result code (https://www.sqlite.org/rescode.html), e.g. 13
        /// `SQLITE_FULL`, 266 `SQLITE_IOERR_READ`; the primary code is its low byte.
        case sqlite(extendedCode: Int32)
        /// A PostgreSQL SQLSTATE (five characters, e.g. `53100` disk full), as libpq reports it.
        case postgres(sqlState: String)
        /// The store was closed (the server is stopping).
        case closed
        /// The store cannot work with what it found (e.g. a schema newer than this build).
        case incompatible
        /// The operating system refused a file operation around the database (its folder).
        case fileSystem
        /// Another open store (another server) holds the database: see `SQLiteStoreLock`.
        case inUse
    }

    /// A passing fault: the store cannot take writes now but may later, with nothing wrong
    /// in the request or the data.
    public enum Fault: String, Sendable, CaseIterable {
        case diskFull = "disk-full"
        case ioError = "io-error"
        case busy
        case locked
        case cannotOpen = "cannot-open"
        /// The database takes no writes for now: a PostgreSQL database or session made read-only
        /// (`default_transaction_read_only`, a hot standby, e.g. a primary demoted by a failover),
        /// or an SQLite file or file system that cannot be written.
        case readOnly = "read-only"
        case unreachable
        case closed
        /// The database reports its file damaged (SQLite's "database disk image is malformed",
        /// PostgreSQL's `data_corrupted`), e.g. a file written over under the running server:
        /// it needs a restore from a backup, but it is the storage that failed, not the request.
        case corrupt
    }

    public let cause: Cause
    /// The database's own words (never shown to clients: it may name files and values).
    public let message: String
    /// The store lost its database while committing, so the write may have been made (a
    /// PostgreSQL connection lost during `COMMIT`, an SQLite I/O error while committing): the
    /// client should read it back before sending it again. False for every other failure,
    /// which kept nothing.
    public let mayHaveCommitted: Bool
    /// The message tells the operator something to do (where a deleted database file was saved,
    /// that a deleted log's commits could not be copied): logged even while its fault is already
    /// in force, when a refused write's error is otherwise not logged again.
    public let mustBeTold: Bool

    public init(_ cause: Cause, _ message: String, mayHaveCommitted: Bool = false, mustBeTold: Bool = false) {
        self.cause = cause
        self.message = message
        self.mayHaveCommitted = mayHaveCommitted
        self.mustBeTold = mustBeTold
    }

    public var description: String {
        switch cause {
        case .sqlite(let code): "SQLite error \(code): \(message)"
        case .postgres(let state): "PostgreSQL error \(state): \(message)"
        case .closed, .incompatible, .fileSystem, .inUse: message
        }
    }

    /// The passing fault this is, or nil for a failure that waiting will not mend.
    public var fault: Fault? {
        switch cause {
        case .sqlite(let code): Self.fault(sqlite: code)
        case .postgres(let state): Self.fault(sqlState: state)
        case .closed: .closed
        case .incompatible, .fileSystem, .inUse: nil
        }
    }

    /// SQLite primary result codes (the low byte of an extended code) that are passing faults.
    static func fault(sqlite code: Int32) -> Fault? {
        switch code & 0xFF {
        case SQLITE_FULL: .diskFull
        case SQLITE_IOERR: .ioError  // and its extended codes: _WRITE, _FSYNC, _SHMSIZE …
        case SQLITE_BUSY: .busy
        case SQLITE_LOCKED: .locked
        case SQLITE_CANTOPEN: .cannotOpen
        // The file was unlinked or renamed under the open store: what `SQLiteStore.writing` calls cannot-open.
        case SQLITE_READONLY where code == SQLITE_READONLY | (4 << 8): .cannotOpen  // SQLITE_READONLY_DBMOVED
        case SQLITE_READONLY: .readOnly  // and _RECOVERY, _CANTLOCK, _ROLLBACK, _CANTINIT, _DIRECTORY
        case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt
        default: nil
        }
    }

    /// SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html) that are
    /// passing faults.
    static func fault(sqlState state: String) -> Fault? {
        switch state {
        case "53100": .diskFull                       // disk_full
        case "58030": .ioError                        // io_error
        case "55P03": .locked                         // lock_not_available (after lock_timeout)
        case "25006": .readOnly                       // read_only_sql_transaction (also a hot standby)
        case "40001", "40P01": .busy                  // serialization_failure, deadlock_detected
        case "57P01", "57P02", "57P03": .unreachable  // admin/crash shutdown, cannot connect now
        case "XX001", "XX002": .corrupt               // data_corrupted, index_corrupted
        default:
            switch state.prefix(2) {
            case "08": .unreachable                   // connection exception
            case "53": .busy                          // insufficient resources (memory, connections)
            default: nil
            }
        }
    }
}
