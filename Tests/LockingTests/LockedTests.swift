import Dispatch
import Locking
import XCTest

final class LockedTests: XCTestCase {
    /// Four threads add to one count under the lock: no addition is lost.
    func testHoldsExcludeEachOther() {
        let count = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<10_000 { count.withLock { $0 += 1 } }
        }
        XCTAssertEqual(count.withLock { $0 }, 40_000)
    }

    /// What the answer cache does: an object made by one thread outside the lock, kept under it,
    /// found there by other threads and read outside it. Every reader sees it whole; under `make
    /// tsan` this is the hand-over a contended `Mutex` hides from ThreadSanitizer, which `Locked`
    /// must announce (it was reported as a race before).
    func testAnObjectHandedOverThroughTheLockIsSeenWhole() {
        final class Pair: @unchecked Sendable {
            var first: Int
            var second: Int
            init(_ n: Int) { first = n; second = 2 * n }
        }
        let shelf = Locked<[Int: Pair]>([:])
        let seen = Locked((whole: 0, torn: 0))
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for i in 0..<5_000 {
                let key = i % 32
                if let pair = shelf.withLock({ $0[key] }) {
                    let whole = pair.second == 2 * pair.first
                    seen.withLock { whole ? ($0.whole += 1) : ($0.torn += 1) }
                } else {
                    let pair = Pair(i * 4 + thread)
                    shelf.withLock { $0[key] = pair }
                }
                if i % 500 == 499 { shelf.withLock { $0.removeAll() } }
            }
        }
        let (whole, torn) = seen.withLock { ($0.whole, $0.torn) }
        XCTAssertEqual(torn, 0)
        XCTAssertGreaterThan(whole, 0, "no reader found a kept object, so nothing was checked")
    }

    /// A lock guarding nothing (`Locked(())`, for a resource kept elsewhere) still excludes.
    func testALockOverNothingExcludes() {
        let gate = Locked(())
        final class Counter: @unchecked Sendable { var n = 0 }
        let counter = Counter()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<10_000 { gate.withLock { _ in counter.n += 1 } }
        }
        XCTAssertEqual(counter.n, 40_000)
    }
}
