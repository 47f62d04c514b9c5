import Foundation
@testable import ListStore
import XCTest

/// The database file deleted (or replaced) under a running store: SQLite would go on writing to
/// the deleted file, whose writes a restart never sees. Every commit after is refused as a
/// `cannot-open` fault instead, so no write is acknowledged that is not in the file at the path.
final class SQLiteReplacedFileTests: XCTestCase {
    func testACommitToADeletedDatabaseFileIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("gone.sqlite").path
        let store = try SQLiteStore(path: path)
        _ = try store.commit([.upsert(collection: "c", id: "a", json: Array("{}".utf8))])
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        for id in ["b", "c"] {
            XCTAssertThrowsError(try store.commit([.upsert(collection: "c", id: id, json: Array("{}".utf8))])) { error in
                XCTAssertEqual((error as? StoreError)?.fault, .cannotOpen, "\(error)")
            }
        }
        store.close()

        // A new store at the path (re-created) takes writes, and none of the refused ones is there.
        let again = try SQLiteStore(path: path)
        defer { again.close() }
        XCTAssertEqual(try again.allRecords(in: "c").map(\.id), [])
        XCTAssertEqual(try again.commit([.upsert(collection: "c", id: "d", json: Array("{}".utf8))]).sequence, 1)
    }
}
