import Foundation

/// One mirror operation's place in line (``ListMirror``'s operations run one at a time), so that
/// a caller who gives up while the operation still waits its turn is answered at once, instead of
/// when the operations before it end — which, for one whose request hangs, is never while its own
/// caller waits.
///
/// Contract: ``outcome(of:)`` gives what the operation's task returns or throws, unless the caller
/// gives up (``giveUp()``) before the task's turn came (``start()``): then it throws
/// `CancellationError` at once, and ``start()`` returns `false`, so the operation never runs. A
/// caller who gives up after the turn came waits for the task, whose requests are cancelled with
/// it, so it ends soon and throwing still means the operation stored nothing. Cost: a lock and a
/// continuation per operation.
final class MirrorTurn<T: Sendable>: @unchecked Sendable {
    private enum State { case waiting, started, givenUp }
    private let lock = NSLock()
    private var state = State.waiting
    private var continuation: CheckedContinuation<T, Error>?
    private var answered = false

    /// Called by the operation's task when its turn comes: whether to run it (`false`: its caller
    /// gave up and has been answered).
    func start() -> Bool {
        lock.withLock {
            guard state == .waiting else { return false }
            state = .started
            return true
        }
    }

    /// The caller gave up: answers it at once when the operation has not started.
    func giveUp() {
        let waiting: CheckedContinuation<T, Error>? = lock.withLock {
            guard state == .waiting else { return nil }
            state = .givenUp
            return take()
        }
        waiting?.resume(throwing: CancellationError())
    }

    /// What `task` (the operation, run in its turn) returns or throws, or `CancellationError` once
    /// the caller gave up before its turn.
    func outcome(of task: Task<T, Error>) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let givenUp = lock.withLock {
                if state == .givenUp { answered = true; return true }
                self.continuation = continuation
                return false
            }
            if givenUp { return continuation.resume(throwing: CancellationError()) }
            Task {
                let result = await task.result
                lock.withLock { take() }?.resume(with: result)
            }
        }
    }

    /// The continuation, once: nil when it was resumed already. Under the lock.
    private func take() -> CheckedContinuation<T, Error>? {
        guard !answered, let continuation else { return nil }
        answered = true
        self.continuation = nil
        return continuation
    }
}
