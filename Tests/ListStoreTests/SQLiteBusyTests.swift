import Foundation
@testable import ListStore
import XCTest

/// Another connection holding the write lock: the store waits SQLite's busy timeout (5 s), then
/// refuses with a typed `busy` fault, changes nothing, and writes again once the lock is gone.
final class SQLiteBusyTests: XCTestCase {
    func testABusyDatabaseIsAFaultThatClearsByItself() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("busy.sqlite").path
        let store = try SQLiteStore(path: path)
        _ = try store.commit([.upsert(collection: "c", id: "a", json: Array("{}".utf8))])

        let other = try SQLiteConnection(path: path)
        try other.run("BEGIN IMMEDIATE")
        do {
            _ = try store.commit([.upsert(collection: "c", id: "b", json: Array("{}".utf8))])
            XCTFail("a write went through while another connection held the lock")
        } catch {
            XCTAssertEqual(error.fault, .busy, error.description)
            guard case .sqlite(let code) = error.cause else { return XCTFail("not an SQLite cause: \(error)") }
            XCTAssertEqual(code & 0xFF, 5, "SQLITE_BUSY")
        }
        XCTAssertEqual(try store.lastSequence(), 1, "reads go on, and the refused write changed nothing")
        XCTAssertNil(try store.record(in: "c", id: "b"))

        try other.run("ROLLBACK")
        other.close()
        let result = try store.commit([.upsert(collection: "c", id: "b", json: Array("{}".utf8))])
        XCTAssertEqual(result.sequence, 2, "the next write takes the next number")
        XCTAssertEqual(try store.allRecords(in: "c").map(\.id), ["a", "b"])
    }
}
