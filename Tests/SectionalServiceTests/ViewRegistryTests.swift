import Foundation
@testable import ListStore
import Locking
@testable import SectionalService
import TestSupport
import XCTest

final class ViewRegistryTests: XCTestCase {
    func testIdleViewsExpireAndUsedOnesLive() throws {
        let now = Locked<Int64>(1_000)
        let store = MemoryStore()
        let registry = try ViewRegistry(store: store, ttlSeconds: 100, clock: { now.withLock { $0 } })
        let used = try XCTUnwrap(try registry.create(list: "l", hidden: ["a", "a", "b"]))
        XCTAssertEqual(used.hidden, ["a", "b"], "keys are kept once")
        let idle = try XCTUnwrap(try registry.create(list: "l", hidden: []))
        XCTAssertNotEqual(used.id, idle.id)

        now.withLock { $0 = 1_080 }
        XCTAssertNotNil(try registry.use(used.id, list: "l"))
        XCTAssertNil(try registry.use(used.id, list: "other"), "a view belongs to one list")
        now.withLock { $0 = 1_150 }
        XCTAssertEqual(try registry.expire(), 1)
        XCTAssertNil(try registry.use(idle.id, list: "l"))
        XCTAssertNotNil(try registry.use(used.id, list: "l"))
        XCTAssertEqual(try store.allViews().map(\.id), [used.id], "expiry reaches the store")
        try registry.flush()
        XCTAssertEqual(try store.allViews().first?.lastUsed, 1_150, "uses are flushed to the store")
        let spellings = try XCTUnwrap(try registry.create(list: "l", hidden: ["\u{E9}", "e\u{301}", "\u{E9}"]))
        XCTAssertEqual(spellings.hidden.map { Array($0.unicodeScalars) }, [["\u{E9}"], ["e", "\u{301}"]],
                       "keys compare by code points: two spellings of é are two keys")
    }

    func testAViewHidesAtMostMaxHiddenKeys() throws {
        let registry = try ViewRegistry(store: MemoryStore(), ttlSeconds: 100)
        let most = (0..<ViewRegistry.maxHiddenKeys).map { "k\($0)" }
        XCTAssertNil(try registry.create(list: "l", hidden: most + ["one more"]))
        XCTAssertEqual(registry.count, 0, "a refused view is not kept")
        let full = try XCTUnwrap(try registry.create(list: "l", hidden: most + most), "repeats count once")
        XCTAssertEqual(try registry.setHidden("one more", in: full.id, list: "l") { _ in true }, .tooManyHiddenKeys)
        guard case .changed(let shown) = try registry.setHidden("k0", in: full.id, list: "l", change: { _ in false }) else {
            return XCTFail("showing a section is always possible")
        }
        XCTAssertEqual(shown.hidden.count, ViewRegistry.maxHiddenKeys - 1)

        let long = String(repeating: "x", count: 1_000)
        let heavy = (0..<66).map { "\($0)" + long }
        XCTAssertNil(try registry.create(list: "l", hidden: heavy), "66 keys of 1,001–1,002 bytes pass 64 KiB")
        let light = try XCTUnwrap(try registry.create(list: "l", hidden: Array(heavy.dropLast(1))))
        XCTAssertEqual(try registry.setHidden(heavy[65], in: light.id, list: "l") { _ in true }, .tooManyHiddenKeys)
    }

    func testTheLeastRecentlyUsedViewsAreEvictedFromMemoryAndStore() throws {
        let store = MemoryStore()
        let registry = try ViewRegistry(store: store, ttlSeconds: 1_000, maxViews: 3)
        let views = try (0..<3).map { _ in try XCTUnwrap(try registry.create(list: "l", hidden: [])) }
        XCTAssertNotNil(try registry.use(views[0].id, list: "l"), "view 0 is now more recent than view 1")
        let fourth = try XCTUnwrap(try registry.create(list: "l", hidden: []))
        XCTAssertEqual(registry.count, 3)
        XCTAssertEqual(registry.evictions, 1)
        XCTAssertNil(try registry.use(views[1].id, list: "l"), "the least recently used went")
        XCTAssertEqual(Set(try store.allViews().map(\.id)), [views[0].id, views[2].id, fourth.id], "from the store too")

        let reopened = try ViewRegistry(store: store, ttlSeconds: 1_000, maxViews: 2)
        XCTAssertEqual(reopened.count, 2, "a lower limit applies at start-up")
        XCTAssertEqual(try store.allViews().count, 2)
    }

    /// A view counts one per started 256 bytes of its keys against `maxViews`, so views at the
    /// size limit cannot hold a thousand times the memory small ones do.
    func testHeavyViewsCountByTheBytesOfTheirKeys() throws {
        let store = MemoryStore()
        let registry = try ViewRegistry(store: store, ttlSeconds: 1_000, maxViews: 100)
        let small = try (0..<10).map { _ in try XCTUnwrap(try registry.create(list: "l", hidden: ["a", "b"])) }
        XCTAssertEqual(registry.evictions, 0, "ten small views weigh ten")
        let heavy = (0..<50).map { "\($0)-" + String(repeating: "k", count: 100) }  // 5,140 bytes: weighs 21
        let big = try (0..<5).map { _ in try XCTUnwrap(try registry.create(list: "l", hidden: heavy)) }
        XCTAssertGreaterThan(registry.evictions, 0, "10 + 5 × 21 passes 100")
        XCTAssertNil(try registry.use(small[0].id, list: "l"), "the least recently used went first")
        XCTAssertNotNil(try registry.use(big[4].id, list: "l"))
        XCTAssertLessThan(registry.count, 15)
    }

    /// With `maxViews` below 256 a view may hide only 256 bytes per view of the bound: a heavier
    /// one could be kept only by evicting itself. It is refused, evicting nothing; one that
    /// fits exactly is kept, the others making room.
    func testAViewHeavierThanTheWholeBoundIsRefusedAndOneThatFitsIsKept() throws {
        let store = MemoryStore()
        let registry = try ViewRegistry(store: store, ttlSeconds: 1_000, maxViews: 200)
        XCTAssertEqual(registry.hiddenBytesLimit, 51_200, "200 views of 256 bytes")
        let small = try (0..<5).map { _ in try XCTUnwrap(try registry.create(list: "l", hidden: ["a"])) }
        let keys = (0..<50).map { "\($0 + 10)" + String(repeating: "k", count: 1_022) }   // 50 × 1,024 = 51,200 bytes
        XCTAssertNil(try registry.create(list: "l", hidden: keys + ["x"])?.id, "51,201 bytes weigh 201 of 200")
        XCTAssertEqual(registry.count, 5, "a refused view evicts nothing")
        XCTAssertEqual(registry.evictions, 0)
        let full = try XCTUnwrap(try registry.create(list: "l", hidden: keys))
        XCTAssertNotNil(try registry.use(full.id, list: "l"), "a view that weighs the whole bound is kept")
        XCTAssertEqual(try store.allViews().map(\.id), [full.id], "the others made room, in the store too")
        XCTAssertEqual(registry.evictions, UInt64(small.count))
        XCTAssertTrue(try registry.setHidden("x", in: full.id, list: "l") { _ in true } == .tooManyHiddenKeys,
                      "hiding one more byte is refused as well")
        XCTAssertEqual(try ViewRegistry(store: MemoryStore(), ttlSeconds: 1, maxViews: 1_000).hiddenBytesLimit, ViewRegistry.maxHiddenBytes)
    }

    /// A view that grows by hiding sections counts its new weight at once: past `maxViews` the
    /// least recently used other views are evicted, as by a create.
    func testAViewGrowingByHidingEvictsPastTheBound() throws {
        let store = MemoryStore()
        let registry = try ViewRegistry(store: store, ttlSeconds: 1_000, maxViews: 10)
        let views = try (0..<10).map { _ in try XCTUnwrap(try registry.create(list: "l", hidden: [])) }
        let long = String(repeating: "k", count: 1_000)   // weighs 4: 10 - 1 + 4 = 13 passes 10
        guard case .changed = try registry.setHidden(long, in: views[9].id, list: "l", change: { _ in true }) else {
            return XCTFail("the key fits one view")
        }
        XCTAssertEqual(registry.evictions, 3, "13 - 3 = 10 fit")
        XCTAssertEqual(registry.count, 7)
        XCTAssertNil(try registry.use(views[0].id, list: "l"), "the least recently used went")
        XCTAssertNotNil(try registry.use(views[9].id, list: "l"), "never the view written")
        XCTAssertEqual(Set(try store.allViews().map(\.id)), Set(views[3...].map(\.id)), "from the store too")
    }


    /// Two registries on one store (two instances): the second's copy of the view is stale
    /// when it hides its section, and it must not write back the view without the first's.
    func testAChangeFromAStaleCopyKeepsTheOtherInstancesChange() throws {
        let store = MemoryStore()
        let first = try ViewRegistry(store: store, ttlSeconds: 100)
        let view = try XCTUnwrap(try first.create(list: "l", hidden: []))
        let second = try ViewRegistry(store: store, ttlSeconds: 100)
        XCTAssertEqual(try first.setHidden("a", in: view.id, list: "l") { _ in true }, .changed(.init(id: view.id, list: "l", owner: nil, hidden: ["a"])))
        XCTAssertEqual(try second.setHidden("b", in: view.id, list: "l") { _ in true }, .changed(.init(id: view.id, list: "l", owner: nil, hidden: ["a", "b"])))
        XCTAssertEqual(try store.view(id: view.id)?.hidden, ["a", "b"])
        XCTAssertTrue(try first.delete(view.id, list: "l"))
        XCTAssertEqual(try second.setHidden("c", in: view.id, list: "l") { _ in true }, .notFound, "a view deleted elsewhere is not written back")
        XCTAssertNil(try store.view(id: view.id))
    }

    func testChangesToOneViewAreSerialised() throws {
        let store = MemoryStore()
        let registry = try ViewRegistry(store: store, ttlSeconds: 1_000)
        for _ in 0..<20 {
            let view = try XCTUnwrap(try registry.create(list: "l", hidden: []))
            DispatchQueue.concurrentPerform(iterations: 8) { i in
                _ = try? registry.setHidden("k\(i)", in: view.id, list: "l") { _ in true }
            }
            XCTAssertEqual(Set(try registry.use(view.id, list: "l")?.hidden ?? []), Set((0..<8).map { "k\($0)" }))
            let deleted = Locked(false)
            DispatchQueue.concurrentPerform(iterations: 8) { i in
                if i == 4 {
                    if (try? registry.delete(view.id, list: "l")) == true { deleted.withLock { $0 = true } }
                } else {
                    _ = try? registry.setHidden("k\(i)", in: view.id, list: "l") { !$0 }
                }
            }
            XCTAssertTrue(deleted.withLock { $0 })
            XCTAssertNil(try registry.use(view.id, list: "l"))
            XCTAssertFalse(try store.allViews().contains { $0.id == view.id }, "not written back to the store")
        }
    }

    /// A delete the store refuses (another connection holds SQLite's write lock: busy after its
    /// 5 s timeout) leaves the view, in memory as in the store, so the answer (503, "nothing was
    /// changed") is true and a retry deletes it.
    func testADeleteTheStoreRefusesLeavesTheView() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("views.sqlite").path
        let store = try SQLiteStore(path: path)
        let registry = try ViewRegistry(store: store, ttlSeconds: 1_000)
        let view = try XCTUnwrap(try registry.create(list: "l", hidden: ["a"]))
        let other = try SQLiteConnection(path: path)
        try other.run("BEGIN IMMEDIATE")
        XCTAssertThrowsError(try registry.delete(view.id, list: "l")) { error in
            XCTAssertEqual((error as? StoreError)?.fault, .busy)
        }
        XCTAssertEqual(try registry.use(view.id, list: "l")?.hidden, ["a"], "still served")
        try other.run("ROLLBACK")
        other.close()
        XCTAssertEqual(try store.allViews().map(\.id), [view.id], "still stored")
        XCTAssertTrue(try registry.delete(view.id, list: "l"), "the retry deletes it")
        XCTAssertNil(try registry.use(view.id, list: "l"))
        XCTAssertEqual(try store.allViews().map(\.id), [])
    }
}
