import Foundation
import Synchronization
import XCTest
@testable import SectionalService

/// A reaper frees what it is handed on its own queue: the writer that drops old versions never
/// pays for freeing them, even when the queue is already running and gets to a value first.
final class ReaperTests: XCTestCase {
    /// Calls `freed` from its deinit.
    private final class Tracer: Sendable {
        let freed: @Sendable () -> Void
        init(_ freed: @escaping @Sendable () -> Void) { self.freed = freed }
        deinit { freed() }
    }

    func testFreesOnItsQueueNeverOnTheCallersThread() {
        let reaper = Reaper(label: "sectional.test.reaper")
        let caller = pthread_self()
        let freed = Atomic<Int>(0)
        let freedOnCaller = Atomic<Int>(0)
        // Handed over back to back, so the queue is busy (its thread awake) while later values
        // arrive: the case where a caller that kept a reference of its own would free them.
        let values = 20_000
        for _ in 0..<values {
            reaper.free(Tracer {
                if pthread_equal(pthread_self(), caller) != 0 { freedOnCaller.add(1, ordering: .relaxed) }
                freed.add(1, ordering: .relaxed)
            })
        }
        reaper.drain()
        XCTAssertEqual(freed.load(ordering: .relaxed), values, "every value is freed once the queue drains")
        XCTAssertEqual(freedOnCaller.load(ordering: .relaxed), 0, "values freed on the caller's thread")
        XCTAssertEqual(reaper.pendingCount, 0)
    }

    /// Values wait to be gathered, but not for a drain: each is freed on its own within the
    /// gathering time, after a drain as before one (a schedule left marked would keep them all).
    func testFreesWithoutBeingDrained() {
        let reaper = Reaper(label: "sectional.test.reaper")
        let freed = Atomic<Int>(0)
        func handOverAndWait(_ expected: Int, _ what: String) {
            reaper.free(Tracer { freed.add(1, ordering: .relaxed) })
            let deadline = Date().addingTimeInterval(10)
            while freed.load(ordering: .relaxed) < expected && Date() < deadline { usleep(1_000) }
            XCTAssertEqual(freed.load(ordering: .relaxed), expected, what)
        }
        handOverAndWait(1, "the first value is freed without a drain")
        handOverAndWait(2, "a value handed over after the first was freed is freed too")
        reaper.free(Tracer { freed.add(1, ordering: .relaxed) })
        reaper.drain()
        XCTAssertEqual(freed.load(ordering: .relaxed), 3, "a drain frees what waits")
        handOverAndWait(4, "a value handed over after a drain is freed without another")
        XCTAssertEqual(reaper.pendingCount, 0)
    }

    func testCountsWhatIsPendingUntilFreed() {
        let reaper = Reaper(label: "sectional.test.reaper")
        let gate = DispatchSemaphore(value: 0)
        reaper.free(Tracer { gate.wait() }, count: 3)   // its deinit holds the queue until signalled
        reaper.free([1, 2, 3], count: 2)
        XCTAssertEqual(reaper.pendingCount, 5, "nothing is freed while the first deinit waits")
        gate.signal()
        reaper.drain()
        XCTAssertEqual(reaper.pendingCount, 0)
    }
}
