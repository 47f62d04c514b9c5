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
final class ChangeFollower: Sendable {
    /// The safety net's period: the log is read at least this often, notified or not.
    static let catchUpSeconds = 1.0
    static let firstBackOff = 0.1
    static let longestBackOff = 5.0

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
            finished.signal()
        }
        thread.name = "sectional.follower"
        thread.start()
    }

    /// Stops the thread (within about ``catchUpSeconds``) and closes the listening connection.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        _ = finished.wait(timeout: .now() + Self.catchUpSeconds + Self.longestBackOff + 1)
        listener.close()
    }

    private func run() {
        var backOff = Self.firstBackOff
        var behindLogged = false
        var wait = 0.0
        while !stopping.load(ordering: .relaxed) {
            do throws(StoreError) {
                // A notification of versions already applied (this instance's own commits) needs no read.
                if let announced = try listener.wait(upTo: wait), announced <= lists.applied.current {
                    faults.following(nil, log: log)
                    wait = Self.catchUpSeconds
                    continue
                }
                switch try lists.catchUp() {
                case .current, .waiting:
                    wait = Self.catchUpSeconds
                case .tooFarBehind(let version):
                    if !behindLogged {
                        log.error("this instance fell behind the change log's start: restart it to load the records afresh",
                                  ["version": .number(Double(version))])
                        behindLogged = true
                    }
                    wait = Self.catchUpSeconds
                }
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
                wait = 0
            }
        }
    }

    /// Sleeps `seconds`, waking early when stopping.
    private func pause(_ seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while !stopping.load(ordering: .relaxed), Date() < end { Thread.sleep(forTimeInterval: 0.05) }
    }
}
