import Dispatch
import ListStore
import Locking

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
///
/// **How many.** The wait is for as many requests as the largest of the last ``recentCommits``
/// commits held, at most ``gatherTarget``: clients that each wait for their answer before
/// writing again come back at most that many, so waiting for more only lets the delay run out.
/// With a fixed target of 8, two such clients writing one record at a time committed 1,338
/// writes/s together (each commit waited the whole 1 ms), half of what one alone did (2,514);
/// now 4,143, and four 6,048 instead of 2,513, while the mix and 8 or 32 writers did not move
/// (by hand: single-record `PUT`s, `wrk -t1 -cN`, one pinned core, 100,000 rows; see
/// docs/performance.md). The largest of several commits, not the last one, so that a commit
/// that happened to be small does not shrink the next wait, and the one after, down to no wait
/// at all where writes arrive at random, as in the mix.
final class WriteQueue: Sendable {
    /// A request's writes waiting for the writer.
    struct Item: Sendable {
        let writes: [ViewModelStore.Write]
        let conditions: [WriteCondition]
        let completion: @Sendable (Result<CommitResult, StoreError>) -> Void
    }

    /// Items (requests' writes, however many each) a commit is worth waiting for.
    static let gatherTarget = 8

    /// Commits whose sizes bound the wait (see "How many" above).
    static let recentCommits = 16

    /// The longest the writer waits for them.
    let gatherDelay: DispatchTimeInterval

    private struct State {
        var items: [Item] = []
        /// Whether the writer is draining the queue: from the ``WriteQueue/append(_:)`` that
        /// starts it to the ``WriteQueue/takeAll()`` that finds nothing queued.
        var draining = false
        /// The items the writer waits for on ``WriteQueue/gathered``; 0 when it does not wait.
        var awaited = 0
        /// Items of the last ``WriteQueue/recentCommits`` commits (a ring, oldest overwritten).
        var recent = [Int](repeating: 0, count: WriteQueue.recentCommits)
        var nextRecent = 0

        /// Remembers a commit of `items` and returns the largest of the recent ones.
        mutating func record(commit items: Int) -> Int {
            recent[nextRecent] = items
            nextRecent = (nextRecent + 1) % recent.count
            return recent.max()!
        }
    }

    private let state = Locked(State())
    private let gathered = DispatchSemaphore(value: 0)

    init(gatherDelay: DispatchTimeInterval = .milliseconds(1)) {
        self.gatherDelay = gatherDelay
    }

    /// Queues `item`; returns whether the caller must start the writer, which is when no writer
    /// is draining the queue. An item queued while one is (committing, or gathering) is taken
    /// by that writer's next ``takeAll()``.
    ///
    /// "The queue was empty" is not the test: the writer empties the queue when it takes a batch
    /// and then commits it, so under a steady load the first item after each take found it empty,
    /// and each started one more writer — a block queued behind the one still draining, which
    /// never returned while writes kept coming. `make soak`'s `c32` variant (32 connections, a
    /// write in ten) queued one such block a commit: jemalloc's allocated bytes rose from 21 to
    /// 36 MB in four minutes, most of it libdispatch's continuations and blocks queued from here
    /// (`jeprof` of the live heap's growth), and RSS grew 38% from minute 3 to 10.
    func append(_ item: Item) -> Bool {
        let (start, wake) = state.withLock { state -> (Bool, Bool) in
            state.items.append(item)
            let wake = state.awaited > 0 && state.items.count >= state.awaited
            if wake { state.awaited = 0 }
            let start = !state.draining
            state.draining = true
            return (start, wake)
        }
        if wake { gathered.signal() }
        return start
    }

    /// Every item queued, in order; the queue starts anew (clearing it "keeping capacity" would
    /// keep the largest capacity it ever had). When nothing is queued the drain ends: the writer
    /// returns, and the next ``append(_:)`` starts a writer again.
    func takeAll() -> [Item] {
        state.withLock { state in
            if state.items.isEmpty { state.draining = false }
            defer { state.items = [] }
            return state.items
        }
    }

    /// Writes queued, over all items.
    var writeCount: Int { state.withLock { $0.items.reduce(0) { $0 + $1.writes.count } } }

    /// Whether the writer is waiting for more items.
    var isGathering: Bool { state.withLock { $0.awaited > 0 } }

    /// The items the writer waits for after a commit of `lastCommit` items, when the largest
    /// recent commit held `recentLargest` and `queued` are queued: none after a lone writer's
    /// commit, nor when enough are queued already.
    static func awaited(lastCommit: Int, recentLargest: Int, queued: Int) -> Int {
        let target = min(recentLargest, gatherTarget)
        return lastCommit >= 2 && queued < target ? target : 0
    }

    /// Returns once the items ``awaited(lastCommit:recentLargest:queued:)`` names are queued or
    /// ``gatherDelay`` has passed — at once when it names none. Called by the writer only, after
    /// each commit (`lastCommit` its items; 0 before the first of a run).
    func gather(afterCommitOf lastCommit: Int) {
        let wait = state.withLock { state -> Bool in
            let largest = lastCommit > 0 ? state.record(commit: lastCommit) : 0
            state.awaited = Self.awaited(lastCommit: lastCommit, recentLargest: largest, queued: state.items.count)
            return state.awaited > 0
        }
        guard wait, gathered.wait(timeout: .now() + gatherDelay) == .timedOut else { return }
        // Timed out. An append that reached the target meanwhile has ended the wait and will
        // signal: take that signal, so the next wait does not return at once.
        let signalled = state.withLock { state -> Bool in
            defer { state.awaited = 0 }
            return state.awaited == 0
        }
        if signalled { gathered.wait() }
    }
}
