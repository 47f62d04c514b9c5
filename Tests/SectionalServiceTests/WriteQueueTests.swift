import Dispatch
import Foundation
import Synchronization
import TestSupport
import XCTest
@testable import SectionalService

/// The writer's queue: items come out in order, and the writer waits for more only when the last
/// commit held several requests' writes and few are queued — until as many as the largest recent
/// commit held (at most the target) are queued, or the delay ends.
final class WriteQueueTests: XCTestCase {
    private func item(_ id: String) -> WriteQueue.Item {
        WriteQueue.Item(writes: [.delete(collection: "people", id: id)], conditions: [], completion: { _ in })
    }

    private func ids(_ items: [WriteQueue.Item]) -> [String] {
        items.map { item in
            guard case .delete(_, let id) = item.writes[0] else { return "?" }
            return id
        }
    }

    func testTakesItemsInOrderAndStartsOneWriterADrain() {
        let queue = WriteQueue()
        XCTAssertTrue(queue.append(item("a")), "the first item finds no writer: one is started")
        XCTAssertFalse(queue.append(item("b")), "a later one finds the writer started")
        XCTAssertEqual(queue.writeCount, 2)
        XCTAssertEqual(ids(queue.takeAll()), ["a", "b"])
        XCTAssertEqual(queue.writeCount, 0)
        XCTAssertFalse(queue.append(item("c")), "the writer took a batch and is committing it: it takes this one next")
        XCTAssertEqual(ids(queue.takeAll()), ["c"])
        XCTAssertEqual(queue.takeAll().count, 0, "nothing queued: the writer returns")
        XCTAssertTrue(queue.append(item("d")), "after the writer returned, the next item starts one again")
        XCTAssertEqual(ids(queue.takeAll()), ["d"])
    }

    /// Under a steady load (items keep coming while the writer commits) a drain starts one
    /// writer, however many batches it takes: each item queued while it runs is taken by it.
    func testASteadyLoadStartsNoSecondWriter() {
        let queue = WriteQueue()
        var started = 0, taken = 0
        for batch in 0..<1000 {
            for k in 0..<3 where queue.append(item("\(batch)-\(k)")) { started += 1 }
            taken += queue.takeAll().count
        }
        XCTAssertEqual(taken, 3000)
        XCTAssertEqual(started, 1, "one writer for the whole drain (it was one a batch)")
        XCTAssertEqual(queue.takeAll().count, 0)
        XCTAssertTrue(queue.append(item("next")))
    }

    func testWaitsOnlyAfterACommitOfSeveralRequestsWithFewQueued() {
        XCTAssertEqual(WriteQueue.awaited(lastCommit: 0, recentLargest: 0, queued: 0), 0, "the first commit of a run waits for nothing")
        XCTAssertEqual(WriteQueue.awaited(lastCommit: 1, recentLargest: 30, queued: 0), 0, "a lone writer is never held back")
        XCTAssertEqual(WriteQueue.awaited(lastCommit: 2, recentLargest: 2, queued: 1), 2, "two clients: wait for the two")
        XCTAssertEqual(WriteQueue.awaited(lastCommit: 2, recentLargest: 2, queued: 2), 0, "both are queued already")
        XCTAssertEqual(WriteQueue.awaited(lastCommit: 2, recentLargest: 5, queued: 1), 5, "a small commit does not shrink the wait")
        XCTAssertEqual(WriteQueue.awaited(lastCommit: 30, recentLargest: 30, queued: WriteQueue.gatherTarget - 1), WriteQueue.gatherTarget,
                       "never more than the target")
        XCTAssertEqual(WriteQueue.awaited(lastCommit: 30, recentLargest: 30, queued: WriteQueue.gatherTarget), 0, "enough are queued already")
    }

    /// A lone writer returns at once even with a delay of a minute.
    func testALoneWriterDoesNotWait() {
        let queue = WriteQueue(gatherDelay: .seconds(60))
        _ = queue.append(item("a"))
        let started = Date()
        queue.gather(afterCommitOf: 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "gather waited after a lone writer's commit")
        XCTAssertEqual(ids(queue.takeAll()), ["a"])
    }

    /// Records a commit of `items` items that waits for nothing (as many are queued), and takes them.
    private func recordCommit(of items: Int, in queue: WriteQueue) {
        for k in 0..<items { _ = queue.append(item("r\(k)")) }
        queue.gather(afterCommitOf: items)
        XCTAssertEqual(queue.takeAll().count, items)
    }

    /// Appends `count` items from another thread while the writer gathers after a commit of
    /// `lastCommit` (the delay a minute long): the wait lasts until exactly `count` are queued.
    private func assertWaitEnds(afterCommitOf lastCommit: Int, when count: Int, in queue: WriteQueue,
                                file: StaticString = #filePath, line: UInt = #line) {
        let returned = Atomic<Bool>(false)
        let gathered = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            queue.gather(afterCommitOf: lastCommit)
            returned.store(true, ordering: .sequentiallyConsistent)
            gathered.signal()
        }
        XCTAssertTrue(eventually(within: 30) { queue.isGathering }, "the writer waits: its last commit held several requests' writes",
                      file: file, line: line)
        for k in 0..<(count - 1) { _ = queue.append(item("w\(k)")) }
        XCTAssertTrue(queue.isGathering, "items short of the target do not end the wait", file: file, line: line)
        XCTAssertFalse(returned.load(ordering: .sequentiallyConsistent), file: file, line: line)
        _ = queue.append(item("last"))
        XCTAssertEqual(gathered.wait(timeout: .now() + 30), .success, "the wait ended once \(count) were queued", file: file, line: line)
        XCTAssertEqual(ids(queue.takeAll()), (0..<(count - 1)).map { "w\($0)" } + ["last"], file: file, line: line)
    }

    /// With a delay of a minute, the wait ends as soon as the target is queued (by another
    /// thread), and everything queued meanwhile is taken together; the target is the largest
    /// recent commit's items, at most ``WriteQueue/gatherTarget``.
    func testTheWaitEndsWhenEnoughAreQueued() {
        let queue = WriteQueue(gatherDelay: .seconds(60))
        recordCommit(of: 30, in: queue)
        assertWaitEnds(afterCommitOf: 2, when: WriteQueue.gatherTarget, in: queue)
    }

    /// Two clients that each wait for their answer: after their commit the writer waits for
    /// the two of them, not for the target (which would let the whole delay run out).
    func testTwoWritersAreWaitedForAsTwo() {
        let queue = WriteQueue(gatherDelay: .seconds(60))
        assertWaitEnds(afterCommitOf: 2, when: 2, in: queue)
        assertWaitEnds(afterCommitOf: 2, when: 2, in: queue)
    }

    /// Only the last ``WriteQueue/recentCommits`` commits count: a large one long ago no longer
    /// makes the writer wait for as many.
    func testALargeCommitLongAgoNoLongerCounts() {
        let queue = WriteQueue(gatherDelay: .seconds(60))
        recordCommit(of: 6, in: queue)
        assertWaitEnds(afterCommitOf: 3, when: 6, in: queue)
        for _ in 0..<WriteQueue.recentCommits { recordCommit(of: 1, in: queue) }
        assertWaitEnds(afterCommitOf: 3, when: 3, in: queue)
    }

    /// With fewer queued than the target, the writer waits the whole delay, no longer.
    func testWaitsTheDelayWhenTooFewCome() {
        let queue = WriteQueue(gatherDelay: .milliseconds(50))
        _ = queue.append(item("a"))
        let started = Date()
        queue.gather(afterCommitOf: 2)
        let waited = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(waited, 0.049, "the writer waited for more writes")
        XCTAssertLessThan(waited, 30, "the wait ends with its delay")
        XCTAssertEqual(ids(queue.takeAll()), ["a"])
    }
}
