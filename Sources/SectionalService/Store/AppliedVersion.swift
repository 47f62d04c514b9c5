import Dispatch
import Locking

/// The store-wide version this process has applied to its lists (every commit up to it is in
/// the snapshots), and a way to wait for a later one: what read-your-writes through a load
/// balancer needs (`minVersion`). With one instance a write's version is applied before its
/// answer leaves, so waiting happens only when another instance made the write.
final class AppliedVersion: Sendable {
    private struct State {
        var version: Int64
        var waiters: [(version: Int64, semaphore: DispatchSemaphore)] = []
    }

    private let state: Locked<State>

    init(_ version: Int64) { state = Locked(State(version: version)) }

    var current: Int64 { state.withLock { $0.version } }

    /// Records that everything up to `version` is applied, waking who waited for it.
    func advance(to version: Int64) {
        let ready = state.withLock { state -> [DispatchSemaphore] in
            guard version > state.version else { return [] }
            state.version = version
            let ready = state.waiters.filter { $0.version <= version }.map(\.semaphore)
            state.waiters.removeAll { $0.version <= version }
            return ready
        }
        ready.forEach { $0.signal() }
    }

    /// Whether `version` is applied, waiting up to `timeout` seconds for it (blocks the caller).
    func wait(for version: Int64, timeout: Double) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let applied = state.withLock { state -> Bool in
            if state.version >= version { return true }
            state.waiters.append((version, semaphore))
            return false
        }
        if applied { return true }
        if semaphore.wait(timeout: .now() + timeout) == .success { return true }
        let removed = state.withLock { state -> Bool in
            let before = state.waiters.count
            state.waiters.removeAll { $0.semaphore === semaphore }
            return state.waiters.count < before
        }
        // Not removed: `advance` took it and signals it, so the version did arrive.
        if !removed { semaphore.wait() }
        return !removed
    }
}
