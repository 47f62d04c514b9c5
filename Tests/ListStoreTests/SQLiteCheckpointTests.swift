import Foundation
@testable import ListStore
import TestSupport
import XCTest

/// Checkpoints run off the committing thread (``SQLiteCheckpointer``): once the log passes the
/// background threshold, a checkpoint copies it into the database file while commits go on;
/// when readers keep it from finishing and the log reaches the foreground threshold, the
/// committing thread checkpoints itself; nothing committed is lost either way.
final class SQLiteCheckpointTests: XCTestCase {
    private var folder: URL!

    override func setUp() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
    }

    override func tearDown() { try? FileManager.default.removeItem(at: folder) }

    private func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// A record of 8 KiB: each commit of one adds a few pages to the log.
    private let json = Array("{\"text\":\"\(String(repeating: "x", count: 8_000))\"}".utf8)

    private func write(_ store: SQLiteStore, _ range: Range<Int>) throws {
        for n in range { _ = try store.commit([.upsert(collection: "c", id: "r\(n)", json: json)]) }
    }

    func testTheStoreCheckpointsInTheBackground() throws {
        let path = folder.appendingPathComponent("store.sqlite").path
        let store = try SQLiteStore(path: path)
        let empty = size(path)
        // 600 commits of 8 KiB: over 1,000 pages of log.
        try write(store, 0..<600)
        XCTAssertTrue(eventually(within: 10) { store.checkpointer.checkpoints.background >= 1 },
                      "no checkpoint in the background: \(store.checkpointer.checkpoints)")
        XCTAssertEqual(store.checkpointer.checkpoints.foreground, 0)
        // The pages reached the database file (before, they were only in the log).
        XCTAssertTrue(eventually(within: 10) { size(path) > empty + 1_000 * 4_096 }, "database file: \(size(path)) bytes")
        store.close()

        let reopened = try SQLiteStore(path: path)
        defer { reopened.close() }
        XCTAssertEqual(try reopened.allRecords(in: "c").count, 600)
        XCTAssertEqual(try reopened.lastSequence(), 600)
    }

    func testACommitCheckpointsItselfWhenTheBackgroundCannotKeepUp() throws {
        let path = folder.appendingPathComponent("held.sqlite").path
        let store = try SQLiteStore(path: path)
        try write(store, 0..<1)
        // A reader holding the first snapshot: no checkpoint can copy past it, so the log grows.
        let reader = try SQLiteConnection(path: path)
        try reader.run("BEGIN")
        try reader.query("SELECT count(*) FROM records") { _ in }
        let writer = try SQLiteConnection(path: path)
        let checkpointer = try SQLiteCheckpointer(path: path, background: 20, foreground: 200)
        try checkpointer.start(on: writer)
        for n in 0..<150 {
            try writer.run("INSERT INTO records (collection, id, json, sequence) VALUES ('c', ?, ?, 1)", .text("w\(n)"), .blob(json))
        }
        XCTAssertGreaterThanOrEqual(checkpointer.checkpoints.foreground, 1, "\(checkpointer.checkpoints)")
        XCTAssertTrue(eventually(within: 10) { checkpointer.checkpoints.background >= 1 }, "\(checkpointer.checkpoints)")
        try reader.run("COMMIT")
        reader.close()
        checkpointer.stop(on: writer)
        writer.close()
        XCTAssertEqual(try store.allRecords(in: "c").count, 151)
        store.close()
    }

    /// A log grown while a reader held an old snapshot (a backup, say) shrinks back once it is
    /// checkpointed and starts over: it kept its largest size until the server stopped.
    func testALogGrownWhileAReaderHeldItShrinksBack() throws {
        let path = folder.appendingPathComponent("spike.sqlite").path
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        try write(store, 0..<1)
        let reader = try SQLiteConnection(path: path)
        try reader.run("BEGIN")
        try reader.query("SELECT count(*) FROM records") { _ in }
        // 80 MiB of commits the reader's snapshot keeps in the log.
        let big = Array("{\"text\":\"\(String(repeating: "x", count: 1 << 20))\"}".utf8)
        for n in 0..<80 { _ = try store.commit([.upsert(collection: "c", id: "big\(n)", json: big)]) }
        let spike = size(path + "-wal")
        XCTAssertGreaterThan(spike, SQLiteStore.logSizeLimit, "the log grew past the limit")
        try reader.run("COMMIT")
        reader.close()
        // Once a checkpoint copies it all, the next commit starts the log over, cut to the limit.
        var n = 0
        XCTAssertTrue(eventually(within: 20) {
            n += 1
            _ = try? store.commit([.upsert(collection: "c", id: "after\(n)", json: json)])
            return size(path + "-wal") <= SQLiteStore.logSizeLimit
        }, "the log stayed at \(size(path + "-wal")) bytes (\(spike) at its largest)")
        XCTAssertEqual(try store.allRecords(in: "c").count, 1 + 80 + n)
    }
}
