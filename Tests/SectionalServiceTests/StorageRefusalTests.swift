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
}
