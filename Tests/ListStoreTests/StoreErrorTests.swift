import Foundation
@testable import ListStore
import XCTest

/// Store errors keep their cause typed, and tell a passing fault (answered 503) from any other
/// failure (answered 500).
final class StoreErrorTests: XCTestCase {
    private func fault(sqlite code: Int32) -> StoreError.Fault? { StoreError(.sqlite(extendedCode: code), "").fault }
    private func fault(sqlState state: String) -> StoreError.Fault? { StoreError(.postgres(sqlState: state), "").fault }

    func testSQLiteResultCodesThatClearByThemselvesAreFaults() {
        XCTAssertEqual(fault(sqlite: 13), .diskFull)           // SQLITE_FULL
        XCTAssertEqual(fault(sqlite: 10), .ioError)            // SQLITE_IOERR
        XCTAssertEqual(fault(sqlite: 778), .ioError)           // SQLITE_IOERR_WRITE
        XCTAssertEqual(fault(sqlite: 1290), .ioError)          // SQLITE_IOERR_FSYNC
        XCTAssertEqual(fault(sqlite: 5), .busy)                // SQLITE_BUSY
        XCTAssertEqual(fault(sqlite: 517), .busy)              // SQLITE_BUSY_SNAPSHOT
        XCTAssertEqual(fault(sqlite: 6), .locked)              // SQLITE_LOCKED
        XCTAssertEqual(fault(sqlite: 14), .cannotOpen)         // SQLITE_CANTOPEN
        XCTAssertNil(fault(sqlite: 19))                        // SQLITE_CONSTRAINT
        XCTAssertNil(fault(sqlite: 1))                         // SQLITE_ERROR
    }

    /// A connection lost while `COMMIT` was in flight leaves the write's outcome unknown, and
    /// says so; any other failure at commit, or a lost connection before it, kept nothing.
    func testAConnectionLostWhileCommittingMayHaveCommitted() {
        let lost = PostgresError(sqlState: "08006", message: "server closed the connection unexpectedly")
        XCTAssertTrue(lost.atCommit().storeError.mayHaveCommitted)
        XCTAssertEqual(lost.atCommit().storeError.fault, .unreachable)
        XCTAssertFalse(lost.storeError.mayHaveCommitted, "lost before COMMIT: nothing was committed")
        XCTAssertFalse(PostgresError(sqlState: "40001", message: "could not serialize").atCommit().storeError.mayHaveCommitted)
    }

    /// SQLite writes a WAL transaction's commit frame before it syncs: an I/O error at `COMMIT`
    /// (a failed fsync, 1034) may have left a transaction the next open recovers; a full disk or
    /// a busy database at `COMMIT` did not.
    func testAnSQLiteIOErrorAtCommitMayHaveCommitted() {
        let fsync = SQLiteConnection.failedCommit(StoreError(.sqlite(extendedCode: 1034), "disk I/O error"))
        XCTAssertTrue(fsync.mayHaveCommitted)
        XCTAssertEqual(fsync.fault, StoreError(.sqlite(extendedCode: 1034), "").fault, "the same fault")
        XCTAssertFalse(SQLiteConnection.failedCommit(StoreError(.sqlite(extendedCode: 13), "database or disk is full")).mayHaveCommitted)
        XCTAssertFalse(SQLiteConnection.failedCommit(StoreError(.sqlite(extendedCode: 5), "database is locked")).mayHaveCommitted)
    }

    func testPostgresStatesThatClearByThemselvesAreFaults() {
        XCTAssertEqual(fault(sqlState: "53100"), .diskFull)
        XCTAssertEqual(fault(sqlState: "58030"), .ioError)
        XCTAssertEqual(fault(sqlState: "08006"), .unreachable)
        XCTAssertEqual(fault(sqlState: "57P03"), .unreachable)
        XCTAssertEqual(fault(sqlState: "40001"), .busy)
        XCTAssertEqual(fault(sqlState: "53300"), .busy)
        XCTAssertEqual(fault(sqlState: "55P03"), .locked)
        XCTAssertEqual(fault(sqlState: "25006"), .readOnly)    // read_only_sql_transaction, a hot standby too
        XCTAssertNil(fault(sqlState: "23505"))                 // unique_violation
        XCTAssertNil(fault(sqlState: "42P01"))                 // undefined_table
    }

    /// A file or file system that cannot be written clears by an operator's hand: `503`, not `500`.
    func testSQLiteReadOnlyIsAPassingFault() {
        XCTAssertEqual(fault(sqlite: 8), .readOnly)            // SQLITE_READONLY
        XCTAssertEqual(fault(sqlite: 264), .readOnly)          // SQLITE_READONLY_RECOVERY
        XCTAssertEqual(fault(sqlite: 520), .readOnly)          // SQLITE_READONLY_CANTLOCK
        XCTAssertEqual(fault(sqlite: 776), .readOnly)          // SQLITE_READONLY_ROLLBACK
        XCTAssertEqual(fault(sqlite: 1288), .readOnly)         // SQLITE_READONLY_CANTINIT
        XCTAssertEqual(fault(sqlite: 1544), .readOnly)         // SQLITE_READONLY_DIRECTORY
        // The file was unlinked or renamed under the open store: as when it is found replaced.
        XCTAssertEqual(fault(sqlite: 1032), .cannotOpen)       // SQLITE_READONLY_DBMOVED
    }

    /// A damaged database file (written over under the running server, say) is the storage's
    /// failure, not the server's: `503` with its own cause, not `500 internal`.
    func testADamagedDatabaseIsAFaultOfItsOwn() {
        XCTAssertEqual(fault(sqlite: 11), .corrupt)            // SQLITE_CORRUPT: "database disk image is malformed"
        XCTAssertEqual(fault(sqlite: 267), .corrupt)           // SQLITE_CORRUPT_VTAB
        XCTAssertEqual(fault(sqlite: 26), .corrupt)            // SQLITE_NOTADB
        XCTAssertEqual(fault(sqlState: "XX001"), .corrupt)     // data_corrupted
        XCTAssertNil(fault(sqlState: "XX000"))                 // internal_error
    }

    func testAClosedStoreSaysSo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteStore(path: folder.appendingPathComponent("closed.sqlite").path)
        store.close()
        do {
            _ = try store.commit([.upsert(collection: "c", id: "a", json: Array("{}".utf8))])
            XCTFail("a closed store took a write")
        } catch {
            XCTAssertEqual(error.cause, .closed)
            XCTAssertEqual(error.fault, .closed)
        }
    }

    func testAStoreThatCannotBeOpenedSaysWhy() throws {
        do {
            _ = try SQLiteStore(path: "/proc/sectional-cannot-be-here/db.sqlite")
            XCTFail("a store opened where no file can be")
        } catch {
            XCTAssertEqual(error.cause, .fileSystem, error.description)
            XCTAssertNil(error.fault)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let notADatabase = folder.appendingPathComponent("text.sqlite")
        try String(repeating: "not a database ", count: 100).write(to: notADatabase, atomically: true, encoding: .utf8)
        do {
            _ = try SQLiteStore(path: notADatabase.path)
            XCTFail("a text file opened as a store")
        } catch {
            XCTAssertEqual(error.cause, .sqlite(extendedCode: 26), error.description)  // SQLITE_NOTADB
            XCTAssertEqual(error.fault, .corrupt)
        }
    }
}
