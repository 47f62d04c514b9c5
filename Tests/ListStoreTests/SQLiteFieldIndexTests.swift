import Foundation
import ListModel
@testable import ListStore
import XCTest

/// A prepared field's expression index covers only the collection it was prepared in: a write
/// into any other collection (a 1,000,000-record import into `people` beside a per-user
/// `orders` list) does not evaluate the field's `json_extract` nor grow the index.
final class SQLiteFieldIndexTests: XCTestCase {
    func testAPreparedFieldIndexesOnlyItsCollection() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("index.sqlite").path
        let store = try SQLiteStore(path: path)
        let owner = try XCTUnwrap(FieldPath("owner"))
        // The index over every collection that earlier versions made, as an upgraded database has it.
        let legacy = SQLiteStore.indexName(owner)
        let expression = try XCTUnwrap(SQLiteStore.fieldExpression(owner))
        try store.writing { connection throws(StoreError) in try connection.execute("CREATE INDEX \(legacy) ON records (collection, \(expression))") }

        try store.prepareField(owner, in: "it's orders")
        _ = try store.commit([.upsert(collection: "it's orders", id: "o1", json: Array(#"{"owner":"ann"}"#.utf8)),
                              .upsert(collection: "people", id: "p1", json: Array(#"{"owner":"ann"}"#.utf8))])

        let other = try SQLiteConnection(path: path, readOnly: true)
        defer { other.close() }
        var indexes: [String: String] = [:]
        try other.query("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL") { row throws(StoreError) in
            indexes[try row.text(0)] = try row.text(1)
        }
        XCTAssertNil(indexes[legacy], "the index over every collection is dropped")
        let sql = try XCTUnwrap(indexes[SQLiteStore.indexName(owner, in: "it's orders")], "\(indexes)")
        XCTAssertTrue(sql.hasSuffix("WHERE collection = 'it''s orders'"), sql)
        XCTAssertEqual(indexes.count, 1, "\(indexes)")
        // Only the prepared collection's records are in it.
        var entries = -1
        try other.query("SELECT count(*) FROM records INDEXED BY \(SQLiteStore.indexName(owner, in: "it's orders")) WHERE collection = 'it''s orders'") { row throws(StoreError) in
            entries = Int(row.int(0))
        }
        XCTAssertEqual(entries, 1)
        // Lookups read through it, and a collection that was not prepared is still searched.
        XCTAssertEqual(try store.records(in: "it's orders", field: owner, equals: .string("ann")).map(\.id), ["o1"])
        XCTAssertEqual(try store.records(in: "people", field: owner, equals: .string("ann")).map(\.id), ["p1"])
    }

    /// A field an earlier start prepared keeps its values' versions moving in a start that does
    /// not prepare it (its list left out of the configuration for a while, the collection seeded
    /// before the lists are built): when a later start prepares it again, the version of a value
    /// written meanwhile is that write's, not the one before it.
    func testAFieldPreparedBeforeKeepsItsVersionsMovingInAStartThatDoesNotPrepareIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("fields.sqlite").path
        let owner = try XCTUnwrap(FieldPath("owner"))
        let ann = try XCTUnwrap(ScalarKey(.string("ann")))
        do {
            let store = try SQLiteStore(path: path)
            try store.prepareField(owner, in: "notes")
            _ = try store.commit([.upsert(collection: "notes", id: "n1", json: Array(#"{"owner":"ann"}"#.utf8))])
            store.close()
        }
        let written: Int64
        do {
            let store = try SQLiteStore(path: path)
            written = try store.commit([.upsert(collection: "notes", id: "n2", json: Array(#"{"owner":"ann"}"#.utf8))]).sequence
            XCTAssertEqual(try store.fieldVersion(owner, in: "notes", key: ann), written, "kept without being prepared")
            store.close()
        }
        let store = try SQLiteStore(path: path)
        try store.prepareField(owner, in: "notes")
        XCTAssertEqual(try store.fieldVersion(owner, in: "notes", key: ann), written)
        XCTAssertEqual(try store.records(in: "notes", field: owner, equals: .string("ann")).map(\.id), ["n1", "n2"])
    }
}
