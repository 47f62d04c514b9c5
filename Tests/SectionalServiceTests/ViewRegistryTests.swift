import Foundation
import ListStore
import Synchronization
@testable import SectionalService
import XCTest

final class ViewRegistryTests: XCTestCase {
    func testIdleViewsExpireAndUsedOnesLive() throws {
        let now = Mutex<Int64>(1_000)
        let store = MemoryStore()
        let registry = try ViewRegistry(store: store, ttlSeconds: 100, clock: { now.withLock { $0 } })
        let used = try registry.create(list: "l", hidden: ["a", "a", "b"])
        XCTAssertEqual(used.hidden, ["a", "b"], "keys are kept once")
        let idle = try registry.create(list: "l", hidden: [])
        XCTAssertNotEqual(used.id, idle.id)

        now.withLock { $0 = 1_080 }
        XCTAssertNotNil(registry.use(used.id, list: "l"))
        XCTAssertNil(registry.use(used.id, list: "other"), "a view belongs to one list")
        now.withLock { $0 = 1_150 }
        XCTAssertEqual(try registry.expire(), 1)
        XCTAssertNil(registry.use(idle.id, list: "l"))
        XCTAssertNotNil(registry.use(used.id, list: "l"))
        XCTAssertEqual(try store.allViews().map(\.id), [used.id], "expiry reaches the store")
        try registry.flush()
        XCTAssertEqual(try store.allViews().first?.lastUsed, 1_150, "uses are flushed to the store")
    }
}
