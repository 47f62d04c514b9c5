import HTTPServer
import ListStore
import Locking
import Synchronization

/// How the service meets a failing store: the answer (a passing fault is `503
/// storage-unavailable` with `Retry-After`, any other failure `500 internal`), refused writes
/// counted by cause for `/metrics`, and the fault in force for `/readyz`.
///
/// A fault is in force from a write it refused until the next write that succeeds and changes
/// something (one that wrote nothing proves nothing of the store). The log
/// hears of a fault when it begins and when it clears, not of every write it refuses.
public final class StorageFaults: Sendable {
    /// The `cause` label of failures that are not passing faults (answered 500).
    static let internalCause = "internal"

    private struct State {
        var refused: [String: UInt64] = [:]
        var current: StoreError.Fault?
        /// What the change-log follower met when it last tried to read the shared store.
        var following: StoreError.Fault?
    }

    private let state = Locked(State())
    /// Whether a fault is in force: read on every successful write without the lock; written
    /// only under it, with `current`.
    private let faulted = Atomic<Bool>(false)

    public init() {}

    /// Seconds a client is asked to wait (`Retry-After`) before trying again: contention (busy,
    /// locked) and a stopping server clear in moments; a full disk, an I/O error or a database
    /// that cannot be opened, written (read-only) or reached needs someone's hand (or a
    /// failover), so clients come back less often.
    static func retryAfterSeconds(_ fault: StoreError.Fault) -> Int {
        switch fault {
        case .busy, .locked, .closed: 1
        case .diskFull, .ioError, .cannotOpen, .readOnly, .unreachable, .corrupt: 10
        }
    }

    /// The answer for a store operation that failed with `error`. A refused write (`write`) is
    /// counted and puts its fault in force; a failure that is no passing fault is logged.
    func refusal(for error: StoreError, write: Bool, log: Log) -> HTTPError {
        guard let fault = error.fault else {
            if write { state.withLock { $0.refused[Self.internalCause, default: 0] += 1 } }
            log.error("storage failure", ["error": .text(error.description)])
            return HTTPError.internalError
        }
        if write {
            let began = state.withLock { state -> Bool in
                state.refused[fault.rawValue, default: 0] += 1
                defer {
                    state.current = fault
                    faulted.store(true, ordering: .releasing)
                }
                return state.current != fault
            }
            if began || error.mustBeTold {
                // A database file or log deleted under the server is the one fault that stays.
                let until = switch fault {
                case .cannotOpen: "writes refused until the server is restarted (the error says what to do before)"
                case .corrupt: "the database file is damaged: stop the server and restore it from a backup"
                default: "writes refused until it clears"
                }
                log.warn("storage fault: \(until)", ["fault": .text(fault.rawValue), "error": .text(error.description)])
            }
        }
        let seconds = Self.retryAfterSeconds(fault)
        let detail: String
        if !write {
            detail = "The store cannot be read now (\(fault.rawValue)). Try again in \(seconds) s."
        } else if error.mayHaveCommitted {
            detail = "The store lost its database while committing this (\(fault.rawValue)): it may have been made. Read it back before sending it again, in \(seconds) s or later."
        } else if fault == .cannotOpen || fault == .corrupt {
            detail = "The store cannot take this until the server is restarted (\(fault.rawValue)); nothing was changed."
        } else {
            detail = "The store cannot take this now (\(fault.rawValue)); nothing was changed. Try again in \(seconds) s."
        }
        return HTTPError(.serviceUnavailable, "storage-unavailable", title: "Storage unavailable", detail: detail,
                         headers: ["Retry-After": "\(seconds)"])
    }

    /// A write succeeded: any fault in force has cleared.
    func wrote(log: Log) {
        guard faulted.load(ordering: .acquiring) else { return }
        let cleared = state.withLock { state -> StoreError.Fault? in
            defer {
                state.current = nil
                faulted.store(false, ordering: .releasing)
            }
            return state.current
        }
        if let cleared { log.info("storage fault cleared: writes succeed again", ["fault": .text(cleared.rawValue)]) }
    }

    /// The follower of a shared store could not read it (`nil`: it could again). A store it
    /// reaches again also clears an `unreachable` fault that refused writes, so an instance a
    /// load balancer took out of rotation comes back without needing a write first.
    func following(_ fault: StoreError.Fault?, log: Log) {
        let (began, cleared) = state.withLock { state -> (Bool, StoreError.Fault?) in
            let was = state.following
            state.following = fault
            guard fault == nil else { return (was != fault, nil) }
            if state.current == .unreachable {
                state.current = nil
                faulted.store(false, ordering: .releasing)
            }
            return (false, was)
        }
        if began, let fault { log.warn("storage fault: cannot follow the change log until it clears", ["fault": .text(fault.rawValue)]) }
        if let cleared { log.info("storage fault cleared: following the change log again", ["fault": .text(cleared.rawValue)]) }
    }

    /// The fault in force, if any: the follower's `unreachable` first (a refused write's fault,
    /// such as `busy`, hid it, and `/readyz` said ready while the instance could not follow).
    var current: StoreError.Fault? {
        state.withLock { $0.following == .unreachable ? .unreachable : $0.current ?? $0.following }
    }

    /// Whether the database is unreachable (`/readyz` answers 503: reads still serve the last
    /// applied state, but a load balancer should prefer an instance that can write).
    var unreachable: Bool { current == .unreachable }

    /// Whether this instance fell behind the start of the shared store's change log: it can
    /// apply no other instance's commit, nor its own (they come after them), until it restarts,
    /// so `/readyz` answers 503 (`behind`) for good — its reads would serve a frozen state while
    /// its writes were acknowledged and never shown.
    var behind: Bool { fellBehind.load(ordering: .acquiring) }
    private let fellBehind = Atomic<Bool>(false)

    /// Records that the follower found this instance behind the change log's start.
    func fellBehindTheChangeLog() { fellBehind.store(true, ordering: .releasing) }

    /// Writes refused so far, for every cause (passing faults, then `internal`), zeros included.
    var refusedWrites: [(cause: String, count: UInt64)] {
        let refused = state.withLock { $0.refused }
        return (StoreError.Fault.allCases.map(\.rawValue) + [Self.internalCause]).map { ($0, refused[$0] ?? 0) }
    }
}
