import Foundation
import Locking
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
        // An id no view has (a NUL: PostgreSQL refuses it in text, a 500) is no view, not a fault.
        XCTAssertNil(try registry.use("v\u{0}", list: "l"))
    }

    /// A view used only on another instance for longer than its time to live is still there on
    /// this one: this instance's last use of it is old, the other's is in the database (a use is
    /// in no change log). It answered `404 view-not-found` here, and a client would lose its
    /// hidden sections.
    func testAViewUsedOnAnotherInstancePastItsTimeToLiveHereIsStillFound() throws {
        let database = try XCTUnwrap(self.database)
        let store = try PostgresStore(url: database.url)
        defer { store.close() }
        let now = Locked<Int64>(1_000_000)
        let here = try ViewRegistry(store: store, ttlSeconds: 100, clock: { now.withLock { $0 } })
        let there = try ViewRegistry(store: store, ttlSeconds: 100, clock: { now.withLock { $0 } })
        let view = try XCTUnwrap(try here.create(list: "l", hidden: ["a"]))
        for _ in 0..<3 {
            now.withLock { $0 += 60 }
            XCTAssertEqual(try there.use(view.id, list: "l")?.hidden, ["a"])
            try there.flush()
        }
        XCTAssertEqual(try here.use(view.id, list: "l")?.hidden, ["a"], "used 60 s ago, on the other instance")
        now.withLock { $0 += 101 }
        XCTAssertNil(try here.use(view.id, list: "l"), "unused anywhere past its time to live")
    }
}
