import Foundation
@testable import ListStore
@testable import SectionalService
import TestSupport
import XCTest

/// A view this instance does not hold is looked for in the shared database; when the database
/// cannot answer, that is a fault (`503`), not a missing view (`404 view-not-found`, after which
/// a client would make a new view and lose the hidden sections).
final class PostgresViewFaultTests: PostgresDatabaseTestCase {
    func testAViewTheStoreCannotBeAskedForIsAFaultNotAMissingView() throws {
        let database = try XCTUnwrap(self.database)
        let store = try PostgresStore(url: database.url)
        defer { store.close() }
        let registry = try ViewRegistry(store: store, ttlSeconds: 3600)
        // Made by another instance: in the database, not in this registry's memory.
        try store.saveView(StoredView(id: "v", list: "l", hidden: ["a"], lastUsed: Int64(Date().timeIntervalSince1970)))
        // The table held by another session past the store's lock timeout (5 s).
        let holder = try PostgresTestSession(url: database.url)
        defer { holder.close() }
        try holder.query("BEGIN")
        try holder.query("LOCK TABLE views IN ACCESS EXCLUSIVE MODE")
        XCTAssertThrowsError(try registry.use("v", list: "l")) { error in
            XCTAssertEqual((error as? StoreError)?.fault, .locked, "\(error)")
        }
        try holder.query("ROLLBACK")
        XCTAssertEqual(try registry.use("v", list: "l")?.hidden, ["a"], "found once the table is free")
    }
}
