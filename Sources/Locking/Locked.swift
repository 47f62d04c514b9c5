import Synchronization
#if SECTIONAL_TSAN
import CThreadSanitizer
#endif

/// A value behind a lock: `Synchronization.Mutex`, which ThreadSanitizer can follow.
///
/// On Linux a `Mutex` takes and hands over a contended lock with futex system calls inside the
/// uninstrumented `libswiftSynchronization.so`, so ThreadSanitizer does not see that one thread's
/// unlock comes before the next one's lock. It then reports the values the lock guards, and any
/// object built by one thread and handed to another through it (an answer rendered, kept in a
/// cache under the lock, found there by another request), as races: `make tsan` failed that way
/// on `93b66a5` (the answer cache's answers), and until then a suppression hid every report with
/// a frame inside a lock's body, which would have hidden a real race as well.
///
/// In `make tsan` builds (compiled with `SECTIONAL_TSAN`) ``withLock(_:)`` tells ThreadSanitizer
/// of the hand-over itself: an acquire on this lock's address once it holds the lock, a release
/// before it lets go. Other builds compile to the `Mutex` alone: the wrapper and its calls are
/// inlined away.
///
/// Like `Mutex`, it is not copyable: keep it in a `let` of a class, a global, or a local that the
/// threads borrow (as `Parallelism.map` does), whose storage does not move while it is used.
public struct Locked<Value: ~Copyable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Value>
    #if SECTIONAL_TSAN
    /// A byte after the mutex, so that a value of no size (`Locked(())`, a lock guarding a
    /// resource kept elsewhere), which sits at the mutex's end, is not at the address of whatever
    /// follows: ThreadSanitizer counts each hold's access to the value as a write there, and
    /// reported it against the next lock's own atomic (`PostgresStore`'s two locks).
    @usableFromInline let padding: UInt8 = 0
    #endif

    /// A lock guarding `value`.
    @inlinable @inline(__always)
    public init(_ value: consuming sending Value) { mutex = Mutex(value) }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    @inlinable @inline(__always)
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if SECTIONAL_TSAN
        // The lock's own address, read without touching the value (an access to the value before
        // the acquire would itself be reported).
        let address = withUnsafePointer(to: self) { UnsafeMutableRawPointer(mutating: $0) }
        #endif
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            #if SECTIONAL_TSAN
            __tsan_acquire(address)
            defer { __tsan_release(address) }
            #endif
            return try body(&value)
        }
    }
}
