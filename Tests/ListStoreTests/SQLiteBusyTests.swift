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

    /// Writes queued behind one that waited out the busy timeout in vain are refused in turn
    /// without each waiting 5 s more; once a write goes through, the next waits the whole 5 s again.
    func testWritesAfterOneThatFoundTheDatabaseHeldDoNotEachWaitTheWholeTimeout() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("busy.sqlite").path
        let store = try SQLiteStore(path: path)
        let other = try SQLiteConnection(path: path)
        try other.run("BEGIN IMMEDIATE")
        let write = { (id: String) throws(StoreError) in _ = try store.commit([.upsert(collection: "c", id: id, json: Array("{}".utf8))]) }
        let first = ContinuousClock.now
        XCTAssertThrowsError(try write("a")) { XCTAssertEqual(($0 as? StoreError)?.fault, .busy) }
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - first, .seconds(4), "the first waits SQLite's busy timeout")
        let queued = ContinuousClock.now
        for id in ["b", "c", "d"] {
            XCTAssertThrowsError(try write(id)) { XCTAssertEqual(($0 as? StoreError)?.fault, .busy) }
        }
        XCTAssertLessThan(ContinuousClock.now - queued, .seconds(12), "three more refused at once, not after a timeout each (15 s)")

        try other.run("ROLLBACK")
        try write("e")
        // Held again, and let go half a second later: the write waits for it, as a first one does.
        try other.run("BEGIN IMMEDIATE")
        nonisolated(unsafe) let holder = other   // used by the thread alone until it is joined below
        let released = DispatchSemaphore(value: 0)
        let release = Thread { Thread.sleep(forTimeInterval: 0.5); _ = try? holder.run("ROLLBACK"); released.signal() }
        release.start()
        XCTAssertNoThrow(try write("f"), "after a write went through, a write waits the whole timeout again")
        XCTAssertEqual(released.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try store.allRecords(in: "c").map(\.id), ["e", "f"])
        other.close()
    }
}
