import Dispatch
import Locking

/// The store-wide version this process has applied to its lists (every commit up to it is in
/// the snapshots), and a way to be called back once a later one is: what read-your-writes
/// through a load balancer needs (`minVersion`). With one instance a write's version is applied
/// before its answer leaves, so waiting happens only when another instance made the write.
///
/// Nothing here blocks a thread: a read that waits is a closure kept here (its connection
/// suspended by the server), so any number of waiting reads hold no server thread. The closures
/// run on a serial queue of their own and must be short (a read's resumes its connection).
final class AppliedVersion: Sendable {
    /// Where callbacks and timeouts run: neither on the thread that applied a version (the
    /// writer, the change follower) nor on the global queues, which a busy moment may fill.
    private static let callbacks = DispatchQueue(label: "sectional.applied-version")

    private struct Waiter {
        let version: Int64
        let id: UInt64
        let resume: @Sendable () -> Void
    }

    private struct State {
        var version: Int64
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state: Locked<State>

    init(_ version: Int64) { state = Locked(State(version: version)) }

    var current: Int64 { state.withLock { $0.version } }

    /// Callbacks registered by ``whenApplied(_:timeout:_:)`` and not yet run.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Records that everything up to `version` is applied; runs the callbacks waiting for it.
    func advance(to version: Int64) {
        let ready = state.withLock { state -> [Waiter] in
            guard version > state.version else { return [] }
            state.version = version
            let ready = state.waiters.filter { $0.version <= version }
            if !ready.isEmpty { state.waiters.removeAll { $0.version <= version } }
            return ready
        }
        if !ready.isEmpty { Self.callbacks.async { ready.forEach { $0.resume() } } }
    }

    /// Runs `resume` once `version` is applied, or after `timeout` seconds, whichever comes
    /// first; exactly once either way (it reads ``current`` to tell which).
    func whenApplied(_ version: Int64, timeout: Double, _ resume: @escaping @Sendable () -> Void) {
        let id = state.withLock { state -> UInt64? in
            if state.version >= version { return nil }
            state.nextID &+= 1
            state.waiters.append(Waiter(version: version, id: state.nextID, resume: resume))
            return state.nextID
        }
        guard let id else {
            Self.callbacks.async(execute: resume)
            return
        }
        Self.callbacks.asyncAfter(deadline: .now() + timeout) { [self] in
            // Still here: the version did not come in time. Gone: `advance` took it and runs it.
            let expired = state.withLock { state -> Bool in
                guard let i = state.waiters.firstIndex(where: { $0.id == id }) else { return false }
                state.waiters.remove(at: i)
                return true
            }
            if expired { resume() }
        }
    }
}
