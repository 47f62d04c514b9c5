import CGlibc
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Keeps each of a server's threads on one core of those the process may run on: the first
/// thread to start a connection on the first core, the next on the second, and so on (round
/// the cores again when there are more threads than cores).
///
/// Why: with the server's threads free to move, the kernel often left both of them queued on
/// one core of two while the other idled. A server thread under load seldom sleeps (its
/// connections always have a request waiting), so it is rarely placed afresh, and the kernel
/// moves a thread that ran a moment ago only reluctantly. Measured on this 2-core machine with
/// `wrk -t1 -c32` on the same cores (`make bench`'s first table), two servers alternating, 4–5
/// s each, pinned against free: a warm first page's p99 0.75 against 0.89 ms (medians of five
/// rounds; the free server's rounds up to 3.91), tag look-ups 0.70 against 2.34 ms, random
/// pages 1.68 against 2.96 ms, at the same rates; the 90/10 mix of reads and writes 48,127
/// against 44,830 req/s. The C baseline server, whose threads sleep between its much cheaper
/// answers, lost with the same pinning (113,000 → 98,000 req/s): pinning pays for threads that
/// stay busy.
///
/// Only when there are at least as many threads as cores (the default is one per core) and
/// two or more of each: fewer threads than cores would be tied to cores chosen without
/// knowing what else runs there, and a single thread is better left to go wherever a core is
/// free. A core the process may no longer use (its mask changed since start) is skipped:
/// the thread stays unpinned.
///
/// **A thread inherits the mask of the thread that makes it**, and libdispatch makes its
/// threads on demand from whichever thread hands it work (ending them after a few seconds
/// idle). A request that hands work to a queue can thus leave a libdispatch thread tied to its
/// worker's core, and every block that thread runs later with it: after an import of 50,000
/// records 5 of libdispatch's 9 threads were, and an import of 400,000 ran 25–30% slower. So
/// background work that matters starts with ``freeCallingThread()``. With that, imports of
/// 1,000,000 records, alternating, ran at a median of 80,936 records/s pinned (nine) against
/// 84,183 free (twelve): about 4% slower, inside the machine's ±10% from run to run but lower in
/// most pairs, against 25–30% before. A batch is still parsed on the pinned worker that received
/// it, which can no longer move to an idle core.
public final class ThreadPinning: Sendable {
    /// The cores in the order threads take them.
    private let cores: [Int]
    /// How many threads have taken a core.
    private let taken = Atomic<Int>(0)

    /// Pinning for `threads` threads over `cores` (the process's allowed CPUs), or nil when it
    /// does not apply (see the type's doc).
    init?(threads: Int, cores: [Int]?) {
        guard let cores, cores.count >= 2, threads >= cores.count else { return nil }
        self.cores = cores
    }

    /// Pins the calling thread to its core, the first time the thread calls; later calls only
    /// read a thread-local marker.
    func pinCallingThreadOnce() {
        guard pthread_getspecific(threadMark) == nil else { return }
        _ = pthread_setspecific(threadMark, ThreadMark.pinned)
        let index = taken.wrappingAdd(1, ordering: .relaxed).oldValue
        _ = sectional_pin_calling_thread(Int32(cores[index % cores.count]))
    }

    /// Lets the calling thread run on every core the process may use again, unless it is a
    /// worker this type pinned: the first thing a block of background work does, since its
    /// thread may have been made by a pinned worker (see the type's doc). Two system calls
    /// once for each thread; later calls only read a thread-local marker.
    public static func freeCallingThread() {
        guard pthread_getspecific(threadMark) == nil else { return }
        _ = pthread_setspecific(threadMark, ThreadMark.free)
        _ = sectional_free_calling_thread()
    }
}

/// What ``ThreadPinning`` did to a thread: nothing yet (nil), ``ThreadMark/pinned`` it to a core
/// (a thread belongs to one server's pool for its whole life, so one key serves every server in
/// the process), or ``ThreadMark/free``d it to run on every core.
private enum ThreadMark {
    static var pinned: UnsafeRawPointer? { UnsafeRawPointer(bitPattern: 1) }
    static var free: UnsafeRawPointer? { UnsafeRawPointer(bitPattern: 2) }
}

private let threadMark: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
    return key
}()
