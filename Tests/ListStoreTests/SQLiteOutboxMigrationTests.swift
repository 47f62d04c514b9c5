import Foundation
@testable import ListStore
import XCTest

/// A database made before outbox rows kept the change number they wait since is migrated on
/// open: its pending rows keep their versions and attempts and are claimed oldest version first.
final class SQLiteOutboxMigrationTests: XCTestCase {
    func testPendingDeliveriesOfAnOlderSchemaAreClaimedByTheirVersion() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
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
}
