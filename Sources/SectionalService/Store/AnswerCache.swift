import HTTPServer
import Locking

/// Rendered answers of one immutable list snapshot, so a hot page or outline is written once
/// per version instead of once per request. Bounded by bytes (``budget`` per snapshot, keys and
/// bodies counted): when the next answer does not fit, the oldest answers make room for it; an
/// answer larger than the whole budget is served but not kept.
///
/// Oldest first rather than starting over: with more pages read than fit (`make bench`'s random
/// pages by token: 1,000 pages of 17 KiB against 8 MiB), starting over kept half as many answers
/// on average, and every miss is a render.
final class AnswerCache: Sendable {
    /// Bytes one list's snapshot may hold, in each of its languages: 8 MiB.
    static let listBudget = 8 << 20
    /// Bytes one partition's snapshot may hold: 64 KiB, enough for the outline and first page of
    /// a user's list, so ten thousand resident partitions keep at most 640 MiB of answers.
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
        /// responses built for it. Not counted in the budget: the gzip form is kept only when
        /// smaller than the body, so at most as many bytes again, and each kept response holds
        /// only a copy of its few header fields.
        let memo: ResponseMemo

        init(body: [UInt8], nextPageToken: String? = nil, link: String? = nil, linkPageSize: String? = nil) {
            self.body = body
            self.nextPageToken = nextPageToken
            self.link = link
            self.linkPageSize = linkPageSize
            memo = ResponseMemo(body)
        }

        /// The answer as a JSON response whose gzip form and libmicrohttpd response are made once.
        var response: Response {
            var response = Response.json(body)
            response.memo = memo
            return response
        }

        /// What keeping it costs, with its key.
        func cost(key: Key) -> Int {
            body.count + key.bytes + (nextPageToken?.utf8.count ?? 0) + (link?.utf8.count ?? 0) + (linkPageSize?.utf8.count ?? 0) + 64
        }
    }

    private struct State {
        var answers: [Key: Answer] = [:]
        var bytes = 0
        /// Keys in the order they were first kept; `order[oldest...]` are still to be evicted.
        var order: [Key] = []
        var oldest = 0

        /// Removes the oldest answer still kept and returns it, to be freed by the caller.
        mutating func evictOldest() -> Answer? {
            let key = order[oldest]
            oldest += 1
            let gone = answers.removeValue(forKey: key)
            if let gone { bytes -= gone.cost(key: key) }
            if oldest > 64 && oldest * 2 > order.count {
                order.removeFirst(oldest)
                oldest = 0
            }
            return gone
        }
    }

    private let state = Locked(State())

    /// The cached answer for `key`, or `render()`'s, remembered when it fits the budget.
    func answer<Failure: Error>(for key: Key, render: () throws(Failure) -> Answer) throws(Failure) -> Answer {
        if let hit = state.withLock({ $0.answers[key] }) { return hit }
        let answer = try render()
        let cost = answer.cost(key: key)
        guard cost <= budget else { return answer }
        // What leaves is freed after the lock is released (a page's body and its libmicrohttpd
        // response: about 3,900 instructions that every other reader of this snapshot waited for).
        let evicted = state.withLock { state -> [Answer] in
            var evicted: [Answer] = []
            if let old = state.answers.updateValue(answer, forKey: key) {
                state.bytes -= old.cost(key: key)
                evicted.append(old)
            } else {
                state.order.append(key)
            }
            state.bytes += cost
            while state.bytes > budget {
                if let gone = state.evictOldest() { evicted.append(gone) }
            }
            return evicted
        }
        withExtendedLifetime(evicted) {}
        return answer
    }

    /// Answers held and the bytes they count for.
    var usage: (entries: Int, bytes: Int) { state.withLock { ($0.answers.count, $0.bytes) } }
}
