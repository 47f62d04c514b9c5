import Dispatch
import ListStore
import Synchronization

/// The writes waiting for the writer thread, committed together (group commit), and the
/// writer's short wait for more when writes come from several requests at once.
///
/// **Why wait.** A commit costs about 280 µs of server CPU however few writes it holds — the
/// `fdatasync` (on this project's virtual disk, most of it the kernel's block layer), waking the
/// writer and the answering threads, a new version of each list it changes — and a write about
/// 40 µs more (by hand, 100,000 rows, single-record `PUT`s with `wrk -t1`: 315 µs a write from
/// one connection, one write a commit; 178 µs from four, two a commit). In `make bench`'s mix
/// (90% reads, 10% writes, 32 connections) commits held 2.7 writes, so the commits took about
/// 100 µs of each write's 150 and left less of the two cores to the reads. Waiting up to
/// ``gatherDelay`` for ``gatherTarget`` writes before the next commit, once the last one held
/// writes of several requests: commits held 7–8 writes, and the mix served a median 11% more
/// (eight alternating pairs of 5 s runs on fresh servers: 0–26% more, 35,607–44,353 req/s against
/// 29,485–41,172; server CPU 29.9–38.3 against 32.8–45.7 µs a request; `wrk`'s p99 4.06–5.01 ms
/// against 3.23–4.62, a write waiting up to the delay more).
///
/// **When not.** A lone writer (the last commit held one request's writes: one client, or one
/// import batch at a time) is never held back, so a single write's latency does not move; nor
/// is a writer that has ``gatherTarget`` writes queued already, where a commit is cheap per
/// write: with every request a write (32 connections, 14 a commit), waiting 1 ms after every
/// commit of several requests (tried first) took 25% off the writes' rate, each connection
/// waiting for its own; waiting only while fewer than ``gatherTarget`` are queued left it as it
/// was (10,299–12,544 req/s against 9,637–12,235 over the same eight pairs).
final class WriteQueue: Sendable {
    /// A request's writes waiting for the writer.
    struct Item: Sendable {
        let writes: [ViewModelStore.Write]
        let conditions: [WriteCondition]
        let completion: @Sendable (Result<CommitResult, StoreError>) -> Void
    }

    /// Items (requests' writes, however many each) a commit is worth waiting for.
    static let gatherTarget = 8

    /// The longest the writer waits for them.
    let gatherDelay: DispatchTimeInterval

    private struct State {
        var items: [Item] = []
        /// The writer waits on ``WriteQueue/gathered`` for ``WriteQueue/gatherTarget`` items.
        var gathering = false
    }

    private let state = Mutex(State())
    private let gathered = DispatchSemaphore(value: 0)

    init(gatherDelay: DispatchTimeInterval = .milliseconds(1)) {
        self.gatherDelay = gatherDelay
    }

    /// Queues `item`; returns whether the queue was empty (the caller then starts the writer).
    func append(_ item: Item) -> Bool {
        let (first, wake) = state.withLock { state -> (Bool, Bool) in
            state.items.append(item)
            let wake = state.gathering && state.items.count >= Self.gatherTarget
            if wake { state.gathering = false }
            return (state.items.count == 1, wake)
        }
        if wake { gathered.signal() }
        return first
    }

    /// Every item queued, in order; the queue starts anew (clearing it "keeping capacity" would
    /// keep the largest capacity it ever had).
    func takeAll() -> [Item] {
        state.withLock { state in
            defer { state.items = [] }
            return state.items
        }
    }

    /// Writes queued, over all items.
    var writeCount: Int { state.withLock { $0.items.reduce(0) { $0 + $1.writes.count } } }

    /// Whether the writer is waiting for more items.
    var isGathering: Bool { state.withLock { $0.gathering } }

    /// Whether the writer, whose last commit took `lastCommit` items, waits for more while
    /// `queued` are queued.
    static func shouldGather(lastCommit: Int, queued: Int) -> Bool {
        lastCommit >= 2 && queued < gatherTarget
    }

    /// Returns once ``gatherTarget`` items are queued or ``gatherDelay`` has passed — at once
    /// when ``shouldGather(lastCommit:queued:)`` says not to wait. Called by the writer only.
    func gather(afterCommitOf lastCommit: Int) {
        let wait = state.withLock { state -> Bool in
            guard Self.shouldGather(lastCommit: lastCommit, queued: state.items.count) else { return false }
            state.gathering = true
            return true
        }
        guard wait, gathered.wait(timeout: .now() + gatherDelay) == .timedOut else { return }
        // Timed out. An append that reached the target meanwhile has ended the wait and will
        // signal: take that signal, so the next wait does not return at once.
        let signalled = state.withLock { state -> Bool in
            defer { state.gathering = false }
            return !state.gathering
        }
        if signalled { gathered.wait() }
    }
}
