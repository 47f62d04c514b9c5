import Dispatch
import Synchronization

/// Frees values on a background queue of its own, never on the thread that hands them over:
/// dropping an old snapshot's unshared chunks and rows takes milliseconds, which the writer
/// (or a request) should not pay.
///
/// Why not `queue.async { withExtendedLifetime(value) {} }`: the caller keeps its own reference
/// until it returns, and when the queue's block has already run by then, the caller's release is
/// the last one and it frees everything itself. During a 1,000,000-record import that happened
/// often enough that freeing dropped versions was 5.8% of the server's samples on the writer
/// (`perf`, `ListHistory.append`). Here the value is moved into a box the block empties, so the
/// freeing happens on the queue whoever lets go of the box last: the writer's share of that
/// import's samples went from 63% to 55%. (The import's rate did not move: both cores were
/// already busy, and the freeing still takes one of them.)
final class Reaper: Sendable {
    private let queue: DispatchQueue
    private let pending = Atomic<Int>(0)

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .utility)
    }

    /// Values handed over and not yet freed.
    var pendingCount: Int { pending.load(ordering: .relaxed) }

    /// Frees `value` on the reaper's queue; `count` is what ``pendingCount`` counts it as.
    func free<Value: Sendable>(_ value: consuming Value, count: Int = 1) {
        let box = Box(value)
        pending.add(count, ordering: .relaxed)
        queue.async {
            box.value = nil
            self.pending.subtract(count, ordering: .relaxed)
        }
    }

    /// Returns once everything handed over before the call is freed (for tests).
    func drain() { queue.sync {} }

    /// The value in transit; only the reaper's block touches it after `free` returns.
    private final class Box<Value: Sendable>: @unchecked Sendable {
        var value: Value?
        init(_ value: consuming Value) { self.value = consume value }
    }
}
