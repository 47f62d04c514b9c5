import Dispatch
import Foundation
import Synchronization
import TestSupport
import XCTest
@testable import SectionalService

/// The writer's queue: items come out in order, and the writer waits for more only when the last
/// commit held several requests' writes and few are queued — until enough come, or the delay ends.
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

    func testTakesItemsInOrderAndSaysWhenTheQueueWasEmpty() {
        let queue = WriteQueue()
        XCTAssertTrue(queue.append(item("a")), "the first item finds the queue empty: the writer is started")
        XCTAssertFalse(queue.append(item("b")), "a later one finds the writer started")
        XCTAssertEqual(queue.writeCount, 2)
        XCTAssertEqual(ids(queue.takeAll()), ["a", "b"])
        XCTAssertEqual(queue.writeCount, 0)
        XCTAssertTrue(queue.append(item("c")), "after a take the queue is empty again")
        XCTAssertEqual(ids(queue.takeAll()), ["c"])
    }

    func testWaitsOnlyAfterACommitOfSeveralRequestsWithFewQueued() {
        XCTAssertFalse(WriteQueue.shouldGather(lastCommit: 0, queued: 0), "the first commit of a run waits for nothing")
        XCTAssertFalse(WriteQueue.shouldGather(lastCommit: 1, queued: 0), "a lone writer is never held back")
        XCTAssertTrue(WriteQueue.shouldGather(lastCommit: 2, queued: 1))
        XCTAssertTrue(WriteQueue.shouldGather(lastCommit: 30, queued: WriteQueue.gatherTarget - 1))
        XCTAssertFalse(WriteQueue.shouldGather(lastCommit: 30, queued: WriteQueue.gatherTarget), "enough are queued already")
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

    /// With a delay of a minute, the wait ends as soon as the target is queued (by another
    /// thread), and everything queued meanwhile is taken together.
    func testTheWaitEndsWhenEnoughAreQueued() {
        let queue = WriteQueue(gatherDelay: .seconds(60))
        let returned = Atomic<Bool>(false)
        let gathered = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            queue.gather(afterCommitOf: 2)
            returned.store(true, ordering: .sequentiallyConsistent)
            gathered.signal()
        }
        XCTAssertTrue(eventually(within: 30) { queue.isGathering },
                      "the writer waits: its last commit held two requests' writes and none is queued")
        for k in 0..<(WriteQueue.gatherTarget - 1) { _ = queue.append(item("w\(k)")) }
        XCTAssertTrue(queue.isGathering, "items short of the target do not end the wait")
        XCTAssertFalse(returned.load(ordering: .sequentiallyConsistent))
        _ = queue.append(item("last"))
        XCTAssertEqual(gathered.wait(timeout: .now() + 30), .success, "the wait ended once \(WriteQueue.gatherTarget) were queued")
        XCTAssertEqual(ids(queue.takeAll()), (0..<(WriteQueue.gatherTarget - 1)).map { "w\($0)" } + ["last"])
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
