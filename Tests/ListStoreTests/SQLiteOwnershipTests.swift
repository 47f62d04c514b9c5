import Foundation
@testable import ListStore
import TestSupport
import XCTest

/// A store opens only a database Sectional made (or a new one): another application's file,
/// named by mistake, is refused before anything in it changes — it was switched to write-ahead
/// logging and given Sectional's tables (or half of them, its `user_version` taken for a schema
/// version).
final class SQLiteOwnershipTests: FolderTestCase {
    /// The pragmas and tables of the database at `path`, read by a connection of its own.
    private func describe(_ path: String) throws -> String {
        let connection = try SQLiteConnection(path: path)
        defer { connection.close() }
        var parts: [String] = []
        for pragma in ["journal_mode", "user_version", "application_id"] {
            try connection.query("PRAGMA \(pragma)") { row throws(StoreError) in parts.append("\(pragma)=\(try row.text(0))") }
        }
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { row throws(StoreError) in
            parts.append(try row.text(0))
        }
        return parts.joined(separator: " ")
    }

    func testAnotherApplicationsDatabaseIsRefusedAndLeftAsItWas() throws {
        for (name, setup) in [("plain", ""), ("versioned", "PRAGMA user_version = 3;"), ("marked", "PRAGMA application_id = 42;")] {
            let path = folder.appendingPathComponent("\(name).db").path
            do {
                let other = try SQLiteConnection(path: path)
                try other.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'Important');" + setup)
                other.close()
            }
            let before = try describe(path)
            XCTAssertThrowsError(try SQLiteStore(path: path), name) { error in
                XCTAssertEqual((error as? StoreError)?.cause, .incompatible, "\(error)")
                XCTAssertTrue("\(error)".contains("\(path) is not a Sectional store"), "\(error)")
            }
            XCTAssertEqual(try describe(path), before, "\(name): nothing changed")
            XCTAssertTrue(before.contains("journal_mode=delete"), before)
        }
    }

    func testNewStoresAndStoresMadeBeforeTheMarkOpenAndAreMarked() throws {
        let path = folder.appendingPathComponent("store.sqlite").path
        let store = try SQLiteStore(path: path)
        _ = try store.commit([.upsert(collection: "c", id: "a", json: Array("{}".utf8))])
        store.close()
        XCTAssertTrue(try describe(path).contains("application_id=\(SQLiteSchema.applicationID)"))
        // As a release before the mark left it.
        let unmark = try SQLiteConnection(path: path)
        try unmark.execute("PRAGMA application_id = 0")
        unmark.close()
        let reopened = try SQLiteStore(path: path)
        XCTAssertEqual(try reopened.allRecords(in: "c").map(\.id), ["a"])
        reopened.close()
        XCTAssertTrue(try describe(path).contains("application_id=\(SQLiteSchema.applicationID)"), "marked at its first start")
        // An empty file (as `touch` makes) is a new store.
        let empty = folder.appendingPathComponent("empty.sqlite").path
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        try SQLiteStore(path: empty).close()
    }

    /// A path naming a folder is refused with a message that says so: SQLite said "unable to
    /// open database file", and a path ending in `/` not there yet made a database file named
    /// like the folder.
    func testAFolderIsRefusedAsAStoreAndAsABackup() throws {
        let store = folder.appendingPathComponent("store.sqlite").path
        try SQLiteStore(path: store).close()
        for path in [folder.path, folder.path + "/", folder.path + "/new/"] {
            XCTAssertThrowsError(try SQLiteStore(path: path), path) { error in
                XCTAssertTrue("\(error)".contains("\(path) is a folder"), "\(error)")
            }
            XCTAssertThrowsError(try SQLiteBackup.copy(from: store, to: path), path) { error in
                XCTAssertTrue("\(error)".contains("\(path) is a folder: --to names a file"), "\(error)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/new"), "no file named like the folder")
    }

    /// A backup's scratch files are never the store's, nor followed through a link: a store
    /// named `FILE.partial` was deleted by a backup to `FILE` (its log and index with it), and a
    /// link at `FILE.partial` had the file it leads to emptied and written over. A folder as the
    /// source is refused as one (it was told it had "2 names").
    func testABackupsScratchFilesAreNeverTheStoresOrALinksTarget() throws {
        let live = folder.appendingPathComponent("s.sqlite.partial").path
        let store = try SQLiteStore(path: live)
        defer { store.close() }
        _ = try store.commit([.upsert(collection: "c", id: "a", json: Array("{}".utf8))])
        XCTAssertThrowsError(try SQLiteBackup.copy(from: live, to: folder.appendingPathComponent("s.sqlite").path)) { error in
            XCTAssertTrue("\(error)".contains("would be one of the database's own files"), "\(error)")
        }
        XCTAssertEqual(try store.allRecords(in: "c").map(\.id), ["a"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: live + "-wal"), "the store's log is still there")
        _ = try store.commit([.upsert(collection: "c", id: "b", json: Array("{}".utf8))])

        let precious = folder.appendingPathComponent("precious.txt")
        try Data("precious".utf8).write(to: precious)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("copy.sqlite.partial").path,
                                                   withDestinationPath: "precious.txt")
        XCTAssertThrowsError(try SQLiteBackup.copy(from: live, to: folder.appendingPathComponent("copy.sqlite").path)) { error in
            XCTAssertTrue("\(error)".contains("it is a symbolic link"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: precious), Data("precious".utf8), "the file behind the link untouched")

        XCTAssertThrowsError(try SQLiteBackup.copy(from: folder.path, to: folder.appendingPathComponent("x.sqlite").path)) { error in
            XCTAssertTrue("\(error)".contains("is a folder: --data names a file"), "\(error)")
        }
    }
}
