import Foundation
@testable import ListStore
import XCTest

/// The database file deleted (or replaced) under a running store: SQLite would go on writing to
/// the deleted file, whose writes a restart never sees. Every commit after is refused as a
/// `cannot-open` fault instead, so no write is acknowledged that is not in the file at the path;
/// the same for its write-ahead log, and for every kind of write (views, definitions, the outbox).
/// What the store still sees of a deleted database file (every acknowledged write) is saved
/// beside it, so a restart on that copy loses nothing.
final class SQLiteReplacedFileTests: XCTestCase {
    private var folder: URL!

    override func setUp() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    func testACommitToADeletedDatabaseFileIsRefused() throws {
        let path = folder.appendingPathComponent("gone.sqlite").path
        let store = try SQLiteStore(path: path)
        _ = try store.commit([.upsert(collection: "c", id: "a", json: Array("{}".utf8))])
        // The whole folder, as `rm -rf data/` would.
        try FileManager.default.removeItem(at: folder)
        var messages: [String] = []
        for id in ["b", "c"] {
            XCTAssertThrowsError(try store.commit([.upsert(collection: "c", id: id, json: Array("{}".utf8))])) { error in
                XCTAssertEqual((error as? StoreError)?.fault, .cannotOpen, "\(error)")
                messages.append((error as? StoreError)?.message ?? "")
            }
        }
        store.close()

        // What the store still saw of the deleted file was saved once, and the first refusal says where.
        let saved = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("gone.sqlite.rescued-") }
        XCTAssertEqual(saved.count, 1, "\(saved)")
        let rescued = try XCTUnwrap(saved.first.map { folder.appendingPathComponent($0).path })
        XCTAssertTrue(messages.first?.contains("saved to \(rescued)") == true, "\(messages)")
        XCTAssertFalse(messages.last?.contains("saved to") == true, "told once: \(messages)")
        let copy = try SQLiteStore(path: rescued)
        XCTAssertEqual(try copy.allRecords(in: "c").map(\.id), ["a"], "the acknowledged write is in the saved copy; the refused ones are not")
        copy.close()

        // A new store at the path (re-created) takes writes, and none of the refused ones is there.
        // Made beside the rescued copy, it numbers its changes from the clock, above the earlier
        // store's: a client holding one of those reloads.
        let before = ChangeNumbers.fromClock()
        let again = try SQLiteStore(path: path)
        defer { again.close() }
        XCTAssertEqual(again.rescuedCopiesBeside, [rescued])
        XCTAssertEqual(try again.allRecords(in: "c").map(\.id), [])
        XCTAssertGreaterThan(try again.commit([.upsert(collection: "c", id: "d", json: Array("{}".utf8))]).sequence, before)
    }

    /// A database moved over the store's file: the store's log is set aside with the rescued
    /// copy, so the next start opens the moved file as it is (it applied the old log to it,
    /// leaving 40 of its 5,248 records).
    func testAFileMovedOverTheDatabaseKeepsItsContentsAtTheNextStart() throws {
        let path = folder.appendingPathComponent("live.sqlite").path
        let store = try SQLiteStore(path: path)
        _ = try store.commit([.upsert(collection: "c", id: "a", json: Array(#"{"from":"live"}"#.utf8))])
        let other = folder.appendingPathComponent("other.sqlite").path
        let moved = try SQLiteStore(path: other)
        _ = try moved.commit((0..<50).map { .upsert(collection: "c", id: "m\($0)", json: Array(#"{"from":"other"}"#.utf8)) })
        moved.close()
        XCTAssertEqual(rename(other, path), 0)
        XCTAssertThrowsError(try store.commit([.upsert(collection: "c", id: "b", json: Array("{}".utf8))])) { error in
            XCTAssertEqual((error as? StoreError)?.fault, .cannotOpen, "\(error)")
            XCTAssertTrue("\(error)".contains(".stale-wal"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"), "the store's log is not left beside the moved file")
        store.close()

        let next = try SQLiteStore(path: path)
        defer { next.close() }
        XCTAssertEqual(try next.allRecords(in: "c").count, 50, "the moved file's records, as they were")
        XCTAssertEqual(next.rescuedCopiesBeside, [], "not a new database: no warning")
    }

    /// Where the revisions an earlier store handed out may be lost (a restored copy, a new
    /// database beside a rescued one), a run-time definition's next revision is above them
    /// all: "runtime-2" came again for another definition, a `304` for it and an `If-Match` on it.
    func testDefinitionRevisionsAreNotReusedAfterARestoreOrARescue() throws {
        let path = folder.appendingPathComponent("live.sqlite").path
        let copy = folder.appendingPathComponent("copy.sqlite").path
        let store = try SQLiteStore(path: path)
        let definition = Array(#"{"sections":[]}"#.utf8)
        XCTAssertEqual(try store.saveDefinition(list: "l", json: definition)?.stored.revision, 1)
        _ = try SQLiteBackup.copy(from: path, to: copy)
        XCTAssertEqual(try store.saveDefinition(list: "l", json: definition)?.stored.revision, 2, "after the backup")
        XCTAssertEqual(try store.saveDefinition(list: "new", json: definition)?.stored.revision, 1, "made after the backup")
        let floor = ChangeNumbers.fromClock()
        let restored = try SQLiteStore(path: copy)
        XCTAssertEqual(try restored.allDefinitions().first?.revision, 1, "what the copy holds keeps its revision: the same text")
        XCTAssertGreaterThan(try XCTUnwrap(restored.saveDefinition(list: "l", json: definition)).stored.revision, floor)
        XCTAssertGreaterThan(try XCTUnwrap(restored.saveDefinition(list: "new", json: definition)).stored.revision, floor)
        restored.close()

        try FileManager.default.removeItem(atPath: path)
        XCTAssertThrowsError(try store.saveDefinition(list: "l", json: definition), "refused, and rescued")
        store.close()
        let again = try SQLiteStore(path: path)
        defer { again.close() }
        XCTAssertEqual(again.rescuedCopiesBeside.count, 1)
        XCTAssertGreaterThan(try XCTUnwrap(again.saveDefinition(list: "l", json: definition)).stored.revision, floor)
    }

    func testEveryKindOfWriteToADeletedDatabaseFileIsRefused() throws {
        let path = folder.appendingPathComponent("gone.sqlite").path
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let view = StoredView(id: "v", list: "l", owner: nil, hidden: ["a"], lastUsed: 1)
        try store.saveView(view)
        try FileManager.default.removeItem(atPath: path)
        let writes: [(String, () throws -> Void)] = [
            ("saveView", { try store.saveView(view) }),
            ("updateView", { _ = try store.updateView(view, replacing: ["a"]) }),
            ("deleteView", { _ = try store.deleteView(id: "v") }),
            ("touchViews", { try store.touchViews(["v"], at: 2) }),
            ("saveDefinition", { _ = try store.saveDefinition(list: "l", json: Array(#"{"sections":[]}"#.utf8)) }),
            ("takeSequence", { _ = try store.takeSequence() }),
            ("recordServed", { try store.recordServed(["l": ServedDefinition(fingerprint: 1, sequence: 1)]) }),
        ]
        for (name, write) in writes {
            XCTAssertThrowsError(try write(), name) { error in
                XCTAssertEqual((error as? StoreError)?.fault, .cannotOpen, "\(name): \(error)")
            }
        }
    }

    func testADeletedLogIsNoticedAndTheWritesItHeldAreKept() throws {
        try checkADeletedLog(openedAs: nil)
    }

    /// The same through a symbolic link to the database file: SQLite names its log after the
    /// file the link leads to, and the store looked for one named after the link (there was
    /// none, so a deleted log went unnoticed and three writes acknowledged after it were lost
    /// at `kill -9`).
    func testADeletedLogIsNoticedThroughALinkToTheDatabaseFile() throws {
        try checkADeletedLog(openedAs: "link.sqlite")
    }

    /// Opens `log.sqlite` (through a symbolic link named `link` to it, if given), deletes its
    /// log, and checks the next writes are refused and the acknowledged one kept.
    private func checkADeletedLog(openedAs link: String?) throws {
        let path = folder.appendingPathComponent("log.sqlite").path
        var opened = path
        if let link {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            opened = folder.appendingPathComponent(link).path
            try FileManager.default.createSymbolicLink(atPath: opened, withDestinationPath: "log.sqlite")
        }
        let store = try SQLiteStore(path: opened)
        defer { store.close() }
        _ = try store.commit([.upsert(collection: "c", id: "a", json: Array("{}".utf8))])
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-wal"), "SQLite's log is named after the file")
        try FileManager.default.removeItem(atPath: path + "-wal")
        XCTAssertThrowsError(try store.commit([.upsert(collection: "c", id: "b", json: Array("{}".utf8))])) { error in
            XCTAssertEqual((error as? StoreError)?.fault, .cannotOpen, "\(error)")
        }
        XCTAssertThrowsError(try store.saveView(StoredView(id: "v", list: "l", owner: nil, hidden: [], lastUsed: 1)))

        // What a start after `kill -9` would find: the database file alone (its log is gone).
        let copy = folder.appendingPathComponent("copy.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let restarted = try SQLiteStore(path: copy)
        defer { restarted.close() }
        XCTAssertEqual(try restarted.allRecords(in: "c").map(\.id), ["a"], "the acknowledged write is in the file; the refused one is not")
    }
}
