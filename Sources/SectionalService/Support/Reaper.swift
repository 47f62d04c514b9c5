import Dispatch
import HTTPServer
import Locking
import Synchronization

/// Frees values on a background queue of its own, never on the thread that hands them over:
/// dropping an old snapshot's unshared chunks and rows takes milliseconds, which the writer
/// (or a request) should not pay.
///
/// Why not `queue.async { withExtendedLifetime(value) {} }`: the caller keeps its own reference
/// until it returns, and when the queue's block has already run by then, the caller's release is
/// the last one and it frees everything itself. During a 1,000,000-record import that happened
/// often enough that freeing dropped versions was 5.8% of the server's samples on the writer
/// (`perf`, `ListHistory.append`). Here the value is moved into a box the queue empties, so the
/// freeing happens on the queue whoever lets go of the box last: the writer's share of that
/// import's samples went from 63% to 55%. (The import's rate did not move: both cores were
/// already busy, and the freeing still takes one of them.)
///
/// **Gathered.** Values wait up to ``gatherMilliseconds`` for others and are freed together:
/// the queue's thread is woken once for them all, not once for each. Handing over the versions
/// of each commit woke another thread each commit: 4.3% of the writer thread's samples under
/// `make bench-service`'s mixed reads and writes (`perf record -t` on the writer's thread).
/// Gathered, and with ``EventHub`` no longer woken for lists no stream follows: 0.30–0.33 context
/// switches a request in that mix against 0.39–0.42 (four alternating 5 s runs each, all the
/// server's threads); the server's CPU a request moved less than the machine did (52.9–56.6
/// against 53.1–57.9 µs).
final class Reaper: Sendable {
    /// How long a value handed over waits for others before the queue frees them.
    static let gatherMilliseconds = 5

    private let queue: DispatchQueue
    private let pending = Atomic<Int>(0)
    private let waiting = Locked(Waiting())

    /// Values handed over and not yet taken by the queue; `scheduled` while a block will take them.
    private struct Waiting {
        var boxes: [any Emptiable] = []
        var count = 0
        var scheduled = false
    }

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .utility)
    }

    /// Values handed over and not yet freed.
    var pendingCount: Int { pending.load(ordering: .relaxed) }

    /// Frees `value` on the reaper's queue within about ``gatherMilliseconds``; `count` is what
    /// ``pendingCount`` counts it as.
    func free<Value: Sendable>(_ value: consuming Value, count: Int = 1) {
        let box = Box(value)
        pending.add(count, ordering: .relaxed)
        let schedule = waiting.withLock { waiting -> Bool in
            waiting.boxes.append(box)
            waiting.count += count
            let wasScheduled = waiting.scheduled
            waiting.scheduled = true
            return !wasScheduled
        }
        guard schedule else { return }
        queue.asyncAfter(deadline: .now() + .milliseconds(Self.gatherMilliseconds)) { self.freeWaiting() }
    }

    /// Returns once everything handed over before the call is freed (for tests). The freeing is
    /// queued, then waited for: `sync` would run it on the calling thread.
    func drain() {
        queue.async { self.freeWaiting() }
        queue.sync {}
    }

    /// Frees every value waiting (on the queue), on every core: freeing old versions is about a
    /// tenth of an import's CPU (``ThreadPinning``).
    private func freeWaiting() {
        ThreadPinning.freeCallingThread()
        let (boxes, count) = waiting.withLock { waiting in
            defer { waiting = Waiting() }
            return (waiting.boxes, waiting.count)
        }
        for box in boxes { box.empty() }
        pending.subtract(count, ordering: .relaxed)
    }

    /// A box the queue empties.
    private protocol Emptiable: AnyObject, Sendable {
        func empty()
    }

    /// The value in transit; only the reaper's queue touches it after `free` returns.
    private final class Box<Value: Sendable>: Emptiable, @unchecked Sendable {
        var value: Value?
        init(_ value: consuming Value) { self.value = consume value }
        func empty() { value = nil }
    }
}
