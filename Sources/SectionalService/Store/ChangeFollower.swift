import Foundation
import ListStore
import Synchronization

/// The thread that keeps an instance on a shared store (PostgreSQL) current with every other
/// instance's writes: it waits for a commit's `NOTIFY` (``PostgresChangeListener``) or at most
/// ``catchUpSeconds``, then applies the change log after the last applied version
/// (``ViewModelStore/catchUp()``). Requests never wait for it, except a read that asks for a
/// version (`minVersion`).
///
/// Faults: when the database cannot be reached, the fault is reported (``StorageFaults``:
/// `/readyz` 503), and the follower tries again after a back-off that doubles from 0.1 s to 5 s;
/// once it reaches the database it catches up and reports the fault cleared. Reads keep serving
/// the last applied state meanwhile.
///
/// Stalls: when the next version is not in the log yet (a commit not yet visible), it looks
/// again after ``firstWait``; once it has stayed at the same version for ``catchUpSeconds`` (no
/// commit takes that long to become visible) the wait doubles up to ``catchUpSeconds`` and
/// notifications no longer wake it — a definition change this instance
/// cannot follow (logged each time) holds it there until an operator acts, and reading the log's
/// next 10,000 commits twenty times a second, or on every other instance's commit, would load
/// the database and this instance for nothing.
final class ChangeFollower: Sendable {
    /// The safety net's period: the log is read at least this often, notified or not.
    static let catchUpSeconds = 1.0
    static let firstBackOff = 0.1
    static let longestBackOff = 5.0
    /// The first wait for a version not yet visible in the log.
    static let firstWait = 0.05
    /// The longest single wait for a notification (how long stopping may take).
    static let slice = 0.2

    private let lists: ViewModelStore
    private let listener: PostgresChangeListener
    private let faults: StorageFaults
    private let log: Log
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(lists: ViewModelStore, listener: PostgresChangeListener, faults: StorageFaults, log: Log) {
        self.lists = lists
        self.listener = listener
        self.faults = faults
        self.log = log
    }

    func start() {
        let thread = Thread { [self] in
            run()
            // Closed by the thread that uses it, never from another: a connection closed twice
            // would close a descriptor number another part of the process may have reused.
            listener.close()
            finished.signal()
        }
        thread.name = "sectional.follower"
        thread.start()
    }

    /// Stops the thread (it notices within ``slice``, or when its read of the log ends) and
    /// waits for it to close its connection; after 30 s the server stops without it. A second
    /// call returns at once.
    func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        if finished.wait(timeout: .now() + 30) == .timedOut {
            log.error("the change-log follower did not stop within 30 s", [:])
        }
    }

    private func run() {
        var backOff = Self.firstBackOff
        var behindLogged = false
        var stalledAt: Int64? = nil
        var stalledSince = ContinuousClock.now
        var wait = Self.firstWait
        var nextRead = ContinuousClock.now
        while !stopping.load(ordering: .relaxed) {
            do throws(StoreError) {
                // Waits in short slices, so stopping takes no longer than one.
                let remaining = max(0, (nextRead - ContinuousClock.now).seconds)
                let announced = try listener.wait(upTo: min(remaining, Self.slice))
                // A notification of versions already applied (this instance's own commits) needs no read.
                let news = announced.map { $0 > lists.applied.current } ?? false
                // Backed off (stalled over a second at one version): notifications no longer wake it.
                let backedOff = wait > Self.firstWait
                guard (news && !backedOff) || ContinuousClock.now >= nextRead else { continue }
                var period = Self.catchUpSeconds
                switch try lists.catchUp() {
                case .current:
                    stalledAt = nil
                    wait = Self.firstWait
                case .waiting(let version):
                    if stalledAt != version {
                        (stalledAt, stalledSince, wait) = (version, ContinuousClock.now, Self.firstWait)
                    } else if ContinuousClock.now - stalledSince >= .seconds(Self.catchUpSeconds) {
                        wait = min(wait * 2, Self.catchUpSeconds)
                    }
                    period = wait
                case .tooFarBehind(let version):
                    if !behindLogged {
                        log.error("this instance fell behind the change log's start: restart it to load the records afresh (/readyz answers 503 until then)",
                                  ["version": .number(Double(version))])
                        faults.fellBehindTheChangeLog()
                        behindLogged = true
                    }
                }
                nextRead = ContinuousClock.now + .seconds(period)
                faults.following(nil, log: log)
                backOff = Self.firstBackOff
            } catch {
                if let fault = error.fault {
                    faults.following(fault, log: log)
                } else {
                    log.error("following the change log failed", ["error": .text(error.description)])
                }
                pause(backOff)
                backOff = min(backOff * 2, Self.longestBackOff)
                nextRead = ContinuousClock.now
            }
        }
    }

    /// Sleeps `seconds`, waking early when stopping.
    private func pause(_ seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while !stopping.load(ordering: .relaxed), Date() < end { Thread.sleep(forTimeInterval: 0.05) }
    }
}
