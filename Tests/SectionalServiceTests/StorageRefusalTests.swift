import ListStore
@testable import SectionalService
import XCTest

/// What a refused write's `503` tells the client: nothing was changed, send it again — unless
/// the database was lost while the write committed, when it may have been made.
final class StorageRefusalTests: XCTestCase {
    func testARefusalSaysWhetherTheWriteMayHaveBeenMade() {
        let faults = StorageFaults()
        let log = Log(level: .error)
        let refused = faults.refusal(for: StoreError(.postgres(sqlState: "08006"), "lost"), write: true, log: log)
        XCTAssertEqual(refused.status, .serviceUnavailable)
        XCTAssertTrue(refused.detail.contains("nothing was changed"), refused.detail)
        let unknown = faults.refusal(for: StoreError(.postgres(sqlState: "08006"), "lost", mayHaveCommitted: true), write: true, log: log)
        XCTAssertEqual(unknown.status, .serviceUnavailable)
        XCTAssertEqual(unknown.slug, "storage-unavailable")
        XCTAssertTrue(unknown.detail.contains("it may have been made. Read it back"), unknown.detail)
        XCTAssertFalse(unknown.detail.contains("nothing was changed"), unknown.detail)
    }

    /// A fault that only a restart mends (a file deleted under the server, a damaged one) does
    /// not ask for a retry in 10 s, which could not succeed; a damaged file was `500 internal`.
    func testARefusalThatNeedsARestartSaysSo() {
        let faults = StorageFaults()
        let log = Log(level: .error)
        for code: Int32 in [14, 11] {   // SQLITE_CANTOPEN, SQLITE_CORRUPT
            let refused = faults.refusal(for: StoreError(.sqlite(extendedCode: code), "gone or damaged"), write: true, log: log)
            XCTAssertEqual(refused.status, .serviceUnavailable)
            XCTAssertTrue(refused.detail.contains("until the server is restarted"), refused.detail)
            XCTAssertFalse(refused.detail.contains("Try again"), refused.detail)
        }
        XCTAssertEqual(faults.current, .corrupt, "/readyz names it")
    }

    /// A read the store cannot answer changed nothing to speak of: its `503` says the store
    /// cannot be read now, not "nothing was changed".
    func testARefusedReadSaysSo() {
        let faults = StorageFaults()
        let refused = faults.refusal(for: StoreError(.postgres(sqlState: "08006"), "lost"), write: false, log: Log(level: .error))
        XCTAssertEqual(refused.status, .serviceUnavailable)
        XCTAssertEqual(refused.detail, "The store cannot be read now (unreachable). Try again in 10 s.")
        XCTAssertNil(faults.current, "a read puts no fault in force")
    }

    /// A database the follower cannot reach is reported whatever a refused write put in force
    /// (`/readyz` answers 503 on it): a write refused as `busy` hid it, and the instance said
    /// it was ready while it could not follow.
    func testAnUnreachableDatabaseIsReportedOverAWritesFault() {
        let faults = StorageFaults()
        let log = Log(level: .error)
        _ = faults.refusal(for: StoreError(.postgres(sqlState: "55P03"), "lock timeout"), write: true, log: log)
        XCTAssertEqual(faults.current, .locked)
        faults.following(.unreachable, log: log)
        XCTAssertEqual(faults.current, .unreachable)
        XCTAssertTrue(faults.unreachable)
        faults.following(nil, log: log)
        XCTAssertEqual(faults.current, .locked, "the write's fault stays until a write succeeds")
        XCTAssertFalse(faults.unreachable)
    }
}
