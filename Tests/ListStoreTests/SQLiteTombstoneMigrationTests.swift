import Foundation
@testable import ListStore
import TestSupport
import XCTest

/// A database made while deletes still wrote tombstones (a `deletions` table nothing read) is
/// migrated on open: the table is gone, its records and change number are kept, and deletes go
/// on working without it.
final class SQLiteTombstoneMigrationTests: FolderTestCase {
    func testTheTombstoneTableOfAnOlderSchemaIsDroppedAndItsRecordsKept() throws {
        let path = folder.appendingPathComponent("old.sqlite").path
        let oldVersion = try XCTUnwrap(SQLiteSchema.migrations.firstIndex { $0.contains("DROP TABLE deletions") })
        do {
            let old = try SQLiteConnection(path: path)
            for migration in SQLiteSchema.migrations.prefix(oldVersion) { try old.execute(migration) }
            try old.execute("PRAGMA user_version = \(oldVersion)")
            try old.execute("""
                INSERT INTO records (collection, id, json, sequence) VALUES ('people', 'a', '{}', 1), ('people', 'b', '{}', 3);
                INSERT INTO deletions (sequence, collection, id) VALUES (2, 'people', 'c');
                UPDATE state SET value = 3 WHERE key = 'sequence';
                """)
        }
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.allRecords(in: "people").map(\.id), ["a", "b"])
        XCTAssertEqual(try store.lastSequence(), 3)
        let results = try store.commit([.delete(collection: "people", id: "a")])
        XCTAssertEqual(results.existed, [true])
        XCTAssertEqual(try store.allRecords(in: "people").map(\.id), ["b"])
        XCTAssertEqual(try store.lastSequence(), 4)
        var tables: [String] = []
        try store.reader.withLock { connection throws(StoreError) in
            try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'deletions'") { row throws(StoreError) in
                tables.append(try row.text(0))
            }
        }
        XCTAssertEqual(tables, [], "the tombstone table is dropped")
    }
}
