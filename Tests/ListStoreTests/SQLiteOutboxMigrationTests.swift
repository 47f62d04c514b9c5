import Foundation
@testable import ListStore
import TestSupport
import XCTest

/// A database made before outbox rows kept the change number they wait since is migrated on
/// open: its pending rows keep their versions and attempts and are claimed oldest version first.
final class SQLiteOutboxMigrationTests: FolderTestCase {
    func testPendingDeliveriesOfAnOlderSchemaAreClaimedByTheirVersion() throws {
        let path = folder.appendingPathComponent("old.sqlite").path
        let before = SQLiteSchema.migrations.firstIndex { $0.contains("pending_since") }
        let oldVersion = try XCTUnwrap(before)
        do {
            let old = try SQLiteConnection(path: path)
            for migration in SQLiteSchema.migrations.prefix(oldVersion) { try old.execute(migration) }
            try old.execute("PRAGMA user_version = \(oldVersion)")
            try old.execute("""
                INSERT INTO outbox (webhook, list, partition_key, version, attempts) VALUES ('h', 'a', '', 9, 0);
                INSERT INTO outbox (webhook, list, partition_key, version, attempts, due_at) VALUES ('h', 'b', '', 4, 2, 500);
                """)
        }
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let claimed = try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 9_000, owner: "a", limit: 10)
        XCTAssertEqual(claimed.map(\.list), ["b", "a"], "the row at the older version waited longer")
        XCTAssertEqual(claimed.map(\.attempts), [2, 0])
        XCTAssertEqual(claimed.map(\.version), [4, 9])
    }

    /// A row a server had claimed when it was killed is due at the next open, not after its
    /// lease (one server at a time opens a SQLite store, so no one else holds the claim): the
    /// row and later versions of it waited about 3 minutes by default.
    func testClaimsLeftByAKilledServerAreReleasedAtTheNextOpen() throws {
        let path = folder.appendingPathComponent("killed.sqlite").path
        do {
            let store = try SQLiteStore(path: path)
            store.close()
            let killed = try SQLiteConnection(path: path)
            try killed.execute("""
                INSERT INTO outbox (webhook, list, partition_key, version, attempts, due_at, claimed_by, claimed_until, pending_since)
                VALUES ('h', 'a', '', 7, 1, 500, 'dead-worker', 999999999, 7);
                """)
        }
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let claimed = try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 9_000, owner: "b", limit: 10)
        XCTAssertEqual(claimed.map(\.version), [7], "due as it was, the dead worker's claim gone")
        XCTAssertEqual(claimed.map(\.attempts), [1], "its attempts kept")
    }
}
