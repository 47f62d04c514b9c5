import HTTPServer
import Locking

/// Rendered answers of one immutable list snapshot, so a hot page or outline is written once
/// per version instead of once per request. Bounded by bytes (``budget`` per snapshot: keys,
/// bodies by capacity and a measured overhead per answer): when the next answer does not fit,
/// the oldest answers make room for it; an answer larger than the whole budget is served but not
/// kept. A resident partition's, language's or search result's cache also counts gzip forms and
/// kept libmicrohttpd responses as they are made, and counts in the materialization cache's
/// ``AnswerTally``, against `scopes.maxResidentRows`.
///
/// Oldest first rather than starting over: with more pages read than fit (`make bench`'s random
/// pages by token: 1,000 pages of 17 KiB against 8 MiB), starting over kept half as many answers
/// on average, and every miss is a render.
final class AnswerCache: Sendable {
    /// Bytes one list's snapshot may hold, in each of its languages: 10 MiB. Counted honestly
    /// (bodies by their allocation, each kept response and overhead), 10 MiB holds what 8 MiB of
    /// bodies and keys held before (`make bench`'s random pages: 456 of the 1,000 pages of
    /// 17 KiB, each now about 22.9 kB: a 20 KiB block, its response, token and link); it took
    /// about 12 MiB then (a 24 KiB block each, the writer's unused room kept).
    static let listBudget = 10 << 20
    /// Bytes one partition's (or search result's) snapshot may hold: 64 KiB, enough for the
    /// outline and first page of a user's list. What all of them hold together counts against
    /// `scopes.maxResidentRows` (``AnswerTally``).
    static let partitionBudget = 64 << 10

    /// The bytes this cache may hold.
    let budget: Int

    init(budget: Int = AnswerCache.listBudget) { self.budget = budget }

    /// What an answer is of: its kind (`outline`, `page`) and the parts of the request that pick
    /// it. A struct rather than interpolated text: building the text was a few percent of a warm
    /// first page.
    ///
    /// Hashed once, when made, outside the cache's lock: the dictionary then mixes one integer
    /// per operation. A page's whole token was hashed in each of a miss's three (look-up,
    /// insertion, the eviction's removal), with the lock held: 7.7 string hashes a request, 3.6
    /// now (callgrind, random pages by token). The hash is Swift's seeded `Hasher`, so keys a
    /// client chooses cannot be made to collide.
    struct Key: Hashable, Sendable {
        /// First, so that `==` compares it before the strings.
        private let hash: Int
        let kind: String
        let view: UInt64
        let viewID: String?
        let size: Int
        let token: String?

        init(kind: String, view: UInt64 = 0, viewID: String? = nil, size: Int = 0, token: String? = nil) {
            var h = Hasher()
            h.combine(kind)
            h.combine(view)
            h.combine(viewID)
            h.combine(size)
            h.combine(token)
            hash = h.finalize()
            self.kind = kind
            self.view = view
            self.viewID = viewID
            self.size = size
            self.token = token
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        /// What keeping it costs.
        var bytes: Int { kind.utf8.count + 16 + (viewID?.utf8.count ?? 0) + (token?.utf8.count ?? 0) }
    }

    /// A rendered answer: its body and, for pages, the next page token. A class: a hit hands
    /// out one reference, where a struct of five references was retained and released field by
    /// field at each copy (the look-up's, the route's): 1.4% of a warm first page's samples.
    final class Answer: Sendable {
        let body: [UInt8]
        let nextPageToken: String?
        /// For a page: its `Link` to the next page as the request that rendered it spelled
        /// `pageSize` (``linkPageSize``), with no search or filter parameters; nil otherwise.
        let link: String?
        let linkPageSize: String?
        /// Its gzip form, made for the first request that accepts gzip, and the libmicrohttpd
        /// responses built for it; counted as they are made in a cache that shares the resident
        /// budget (``ResponseMemo/bytes``).
        let memo: ResponseMemo

        /// What an answer takes besides its body, strings and memo: the answer and its memo
        /// (five objects with their locks), a weak reference's side table, its key's slot in the
        /// cache and eviction order. Measured by RSS, release build (jemalloc): 3,000 made-up
        /// users of the demo's `orders` each read 60 page sizes with gzip accepted; 99,000 answers
        /// were kept (each a 288-byte body in a 320-byte block, its gzip form and one kept gzip
        /// response of seven fields) and took 2,135 bytes each beyond the partitions' own 5.3 kB,
        /// where they counted 1,958 with this at 800: so 960. (It was 64, with the memo not counted
        /// at all: a partition's 64 KiB held 180 kB.)
        static let overhead = 960

        /// `body`, in storage of its own size when the writer's was much larger (an empty
        /// page's 1 KiB held 300 bytes). Within a quarter the copy would gain nothing: the
        /// allocator's size classes are a quarter apart (jemalloc: 16, 20, 24, 28 KiB…), so a
        /// 17.7 kB page written into a 20 KiB block (its writer sized by
        /// ``ListSnapshot/pageAnswerBytesBound(_:list:)``) was copied into another 20 KiB block
        /// when this allowed an eighth.
        init(body: [UInt8], nextPageToken: String? = nil, link: String? = nil, linkPageSize: String? = nil) {
            self.body = body.capacity > body.count + body.count / 4 + 64 ? Self.copy(body) : body
            self.nextPageToken = nextPageToken
            self.link = link
            self.linkPageSize = linkPageSize
            memo = ResponseMemo(self.body)
        }

        /// `bytes` in storage of exactly their count.
        private static func copy(_ bytes: [UInt8]) -> [UInt8] {
            [UInt8](unsafeUninitializedCapacity: bytes.count) { target, count in
                count = bytes.withUnsafeBufferPointer { target.initialize(fromContentsOf: $0) }
            }
        }

        /// The answer as a JSON response whose gzip form and libmicrohttpd response are made once.
        var response: Response {
            var response = Response.json(body)
            response.memo = memo
            return response
        }

        /// What keeping it costs, with its key, before its memo grows.
        func cost(key: Key) -> Int {
            body.capacity + key.bytes + (nextPageToken?.utf8.count ?? 0) + (link?.utf8.count ?? 0) + (linkPageSize?.utf8.count ?? 0)
                + Self.overhead
        }
    }

    /// An answer kept and what it is counted for so far (its memo grows after it is kept).
    private struct Kept {
        let answer: Answer
        var cost: Int
    }

    private struct State {
        var answers: [Key: Kept] = [:]
        var bytes = 0
        /// Keys in the order they were first kept; `order[oldest...]` are still to be evicted.
        var order: [Key] = []
        var oldest = 0
        /// Where this cache's bytes are also counted (a partition's, a language's or a search
        /// result's, while it is resident); nil for a pinned list's or once it left.
        var tally: AnswerTally?

        /// Adds `bytes` and `entries` here and to the tally; whether the tally is past its limit.
        mutating func add(bytes: Int, entries: Int) -> Bool {
            self.bytes += bytes
            return tally?.add(bytes: bytes, entries: entries) ?? false
        }

        /// Removes the oldest answer still kept and returns it, to be freed by the caller.
        mutating func evictOldest() -> Answer? {
            let key = order[oldest]
            oldest += 1
            let gone = answers.removeValue(forKey: key)
            if let gone { _ = add(bytes: -gone.cost, entries: -1) }
            if oldest > 64 && oldest * 2 > order.count {
                order.removeFirst(oldest)
                oldest = 0
            }
            return gone?.answer
        }

        /// Evicts the oldest answers until the bytes fit `budget`.
        mutating func fit(_ budget: Int) -> [Answer] {
            var evicted: [Answer] = []
            while bytes > budget, oldest < order.count {
                if let gone = evictOldest() { evicted.append(gone) }
            }
            return evicted
        }
    }

    private let state = Locked(State())

    deinit { leave() }

    /// The cached answer for `key`, or `render()`'s, remembered when it fits the budget.
    func answer<Failure: Error>(for key: Key, render: () throws(Failure) -> Answer) throws(Failure) -> Answer {
        if let hit = state.withLock({ $0.answers[key]?.answer }) { return hit }
        let answer = try render()
        let cost = answer.cost(key: key)
        guard cost <= budget else { return answer }
        // What leaves is freed after the lock is released (a page's body and its libmicrohttpd
        // response: about 3,900 instructions that every other reader of this snapshot waited for).
        let (evicted, over, tally) = state.withLock { state -> ([Answer], Bool, AnswerTally?) in
            var evicted: [Answer] = []
            // In a cache that shares the resident budget, counted from here on as its memo grows;
            // what it holds already (another cache's answer is never handed in, so nothing yet) is
            // in `cost`. Not in a whole list's: observing takes weak references to the answer,
            // which move its reference count to a side table, and every hit retains the answer
            // (the slow path on each request; see `ServerCallbacks.swift`). A whole list's cache
            // is one per list and language, bounded by ``budget`` and at most that again in gzip
            // forms (kept only when smaller than the body) and kept responses.
            let held = state.tally == nil ? 0 : answer.memo.observe { [weak self, weak answer] grown in
                guard let self, let answer else { return }
                self.memoGrew(answer, key: key, by: grown)
            }
            var over = false
            if let old = state.answers.updateValue(Kept(answer: answer, cost: cost + held), forKey: key) {
                over = state.add(bytes: -old.cost, entries: -1) || over
                evicted.append(old.answer)
            } else {
                state.order.append(key)
            }
            over = state.add(bytes: cost + held, entries: 1) || over
            evicted += state.fit(budget)
            return (evicted, over && state.tally != nil, state.tally)
        }
        withExtendedLifetime(evicted) {}
        if over { tally?.overflow() }
        return answer
    }

    /// `answer`'s memo, kept under `key`, grew by `bytes`: counted while it is still kept here.
    private func memoGrew(_ answer: Answer, key: Key, by bytes: Int) {
        let (evicted, overflowing) = state.withLock { state -> ([Answer], AnswerTally?) in
            guard state.answers[key]?.answer === answer else { return ([], nil) }
            state.answers[key]?.cost += bytes
            let over = state.add(bytes: bytes, entries: 0)
            return (state.fit(budget), over ? state.tally : nil)
        }
        withExtendedLifetime(evicted) {}
        overflowing?.overflow()
    }

    /// Counts this cache's answers, now and as they change, in `tally` too (a materialization
    /// made resident). Does nothing when it already counts in one.
    func count(in tally: AnswerTally) {
        state.withLock { state in
            guard state.tally == nil else { return }
            state.tally = tally
            _ = tally.add(bytes: state.bytes, entries: state.answers.count)
        }
    }

    /// Takes this cache's answers out of its tally, at once (its materialization left memory,
    /// and is freed later, off the caller's path): later answers are not counted there.
    func leave() {
        state.withLock { state in
            _ = state.tally?.add(bytes: -state.bytes, entries: -state.answers.count)
            state.tally = nil
        }
    }

    /// The tally this cache counts in, if any.
    var tally: AnswerTally? { state.withLock { $0.tally } }

    /// Answers held and the bytes they count for.
    var usage: (entries: Int, bytes: Int) { state.withLock { ($0.answers.count, $0.bytes) } }
}
