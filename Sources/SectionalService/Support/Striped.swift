import HTTPServer
import Locking
import Synchronization

/// A value kept as several copies ("stripes"), each under a lock of its own, where every thread
/// updates the copy its number picks: for state that each request adds to and that is read
/// whole only now and then (request counts, log lines waiting to be written). One shared copy
/// made the server's threads take turns at one lock and pass its cache lines between cores on
/// every request: with two threads on two cores, the lock's slow path, the log buffer and the
/// request counts' dictionary were about 0.3 µs of a warm first page's 11.7 in `perf`'s
/// samples; with one thread, nothing. Measured alternating with the build before (with the
/// other changes of that commit), 0.38–0.42 µs less a request (docs/performance.md).
///
/// Readers of the whole visit every stripe in turn (``forEach(_:)``), so they see each
/// stripe's updates in order but not one moment across stripes.
final class Striped<Value: Sendable>: Sendable {
    /// Stripes made: at least 8, and one per core on larger machines. Threads are numbered in
    /// the order they first use a stripe, so the HTTP server's threads (one per core by
    /// default, starting together) usually have one each; two threads that share a stripe are
    /// only slower, never wrong.
    static var defaultCount: Int { max(8, System.coreCount) }

    private let stripes: [Stripe]

    /// The number of stripes.
    var count: Int { stripes.count }

    init(count: Int = Striped.defaultCount, _ make: () -> Value) {
        stripes = (0..<max(1, count)).map { _ in Stripe(make()) }
    }

    /// Runs `body` on the calling thread's stripe, under its lock.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try stripes[ThreadNumber.current % stripes.count].value.withLock { try body(&$0) }
    }

    /// Runs `body` on every stripe in turn, each under its lock.
    func forEach(_ body: (inout Value) throws -> Void) rethrows {
        for stripe in stripes { try stripe.value.withLock { try body(&$0) } }
    }

    /// One copy and its lock. The padding keeps the next stripe's lock and value off this one's
    /// cache lines (separate objects can sit side by side in memory).
    private final class Stripe: Sendable {
        let value: Locked<Value>
        private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                              UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

        init(_ value: Value) { self.value = Locked(value) }
    }
}

/// A small number for each thread, 0, 1, 2… in the order threads first ask: picks a thread's
/// ``Striped`` stripe.
enum ThreadNumber {
    private static let next = Atomic<Int>(0)
    private static let slots = ThreadSlot { Number(next.wrappingAdd(1, ordering: .relaxed).oldValue) }

    private final class Number {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    /// The calling thread's number.
    static var current: Int { slots.current.value }
}
