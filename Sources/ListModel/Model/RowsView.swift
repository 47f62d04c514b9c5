/// A read-only view of a ``RowSequence``'s storage that holds no references: the directory's
/// pages and their sums are plain pointers, and page, chunk and row references are read from
/// them as `Unmanaged`.
///
/// Reading through it touches no reference count, so threads serving pages from one shared
/// snapshot do not fight over the cache lines of its rows, chunks and pages. A view is lent by
/// ``RowSequence/withRowsView(_:)`` to a closure and is valid only inside it (the sequence is
/// borrowed, alive and unmodified for that long): never store it or return it from the closure.
/// Rows are lent the same way — ``withRow(at:_:)``, ``withRows(inChunk:_:)``,
/// ``forEachSlice(from:count:_:)`` — as references borrowed for the duration of the call.
///
/// Chunks are numbered across pages: chunk `k` is slot `k % pageSize` of page `k / pageSize`
/// (every page but the last is full).
struct RowsView {
    /// The pages, read as `Unmanaged` (the same layout as the references).
    private let pages: UnsafeBufferPointer<Unmanaged<ChunkPage>>
    /// Rows and tags of pages 0…p.
    private let pageEnds: UnsafeBufferPointer<ChunkEnds>
    /// Number of chunks.
    let chunkCount: Int

    init(pages: UnsafeBufferPointer<Unmanaged<ChunkPage>>, pageEnds: UnsafeBufferPointer<ChunkEnds>, chunkCount: Int) {
        self.pages = pages
        self.pageEnds = pageEnds
        self.chunkCount = chunkCount
    }

    /// Number of rows.
    var count: Int { pageEnds.isEmpty ? 0 : pageEnds[pageEnds.count - 1].rows }

    /// Number of tags.
    private var tagCount: Int { pageEnds.isEmpty ? 0 : pageEnds[pageEnds.count - 1].tags }

    /// Chunk `k`'s slot (its chunk unretained, and the sums through it counted from its page).
    @inline(__always)
    private func entry(_ k: Int) -> ChunkPage.Entry {
        pages[k / RowSequence.pageSize]._withUnsafeGuaranteedRef { $0.entry(k % RowSequence.pageSize) }
    }

    /// Rows and tags of the pages before page `p`.
    @inline(__always)
    private func before(page p: Int) -> ChunkEnds { p > 0 ? pageEnds[p - 1] : .zero }

    /// Rows and tags of chunks 0…k.
    @inline(__always)
    private func ends(through k: Int) -> ChunkEnds { before(page: k / RowSequence.pageSize) + entry(k).ends }

    /// The chunk holding row `i` (0 ≤ i < count; the last chunk past that) and the index of the
    /// chunk's first row: a binary search over the pages' sums, then over one page's.
    @inline(__always)
    func chunkIndex(ofRow i: Int) -> (chunk: Int, start: Int) {
        let (k, before) = chunk(where: i) { $0.rows }
        return (k, before.rows)
    }

    /// The first chunk whose sums (`value` of them: rows or tags) exceed `x` — the last chunk
    /// when none does — and the rows and tags of the chunks before it.
    @inline(__always)
    private func chunk(where x: Int, _ value: (ChunkEnds) -> Int) -> (chunk: Int, before: ChunkEnds) {
        if pageEnds.isEmpty { return (0, .zero) }
        let p = firstEnd(above: x, count: pageEnds.count) { value(pageEnds[$0]) }
        let start = before(page: p), first = p * RowSequence.pageSize
        let c = firstEnd(above: x - value(start), count: min(RowSequence.pageSize, chunkCount - first)) {
            value(entry(first + $0).ends)
        }
        return (first + c, c > 0 ? start + entry(first + c - 1).ends : start)
    }

    /// Lends chunk `k`, borrowed, to `body`.
    @inline(__always)
    func withChunk<R>(_ k: Int, _ body: (RowChunk) -> R) -> R { entry(k).chunk._withUnsafeGuaranteedRef(body) }

    /// Chunk `k`, retained (to share it in a new directory).
    func chunk(_ k: Int) -> RowChunk { withChunk(k) { $0 } }

    /// Lends chunk `k`'s rows, unretained, to `body` (valid only inside it).
    @inline(__always)
    func withRows<R>(inChunk k: Int, _ body: (UnsafeBufferPointer<Unmanaged<Row>>) -> R) -> R {
        withChunk(k) { $0.withUnretainedRows(body) }
    }

    /// Lends row `i` (0 ≤ i < count) to `body`, borrowed: no reference count is touched.
    @inline(__always)
    func withRow<R>(at i: Int, _ body: (Row) -> R) -> R {
        let (k, s) = chunkIndex(ofRow: i)
        return withRows(inChunk: k) { $0[i - s]._withUnsafeGuaranteedRef(body) }
    }

    /// Tags used by rows before row `i`: without reading a row when its chunk's rows all have
    /// one tag length (``RowChunk/tagStride``).
    @inline(__always)
    func tagOffset(ofRow i: Int) -> Int {
        if i >= count { return tagCount }
        let (k, before) = chunk(where: i) { $0.rows }
        var t = before.tags
        let stride = withChunk(k) { $0.tagStride }
        if stride >= 0 { return t + (i - before.rows) * stride }
        withRows(inChunk: k) { rows in
            for j in 0..<(i - before.rows) { t += rows[j]._withUnsafeGuaranteedRef { $0.tagLength } }
        }
        return t
    }

    /// The row whose tag range contains tag offset `t` (relative to the sequence), and its tag
    /// offset; `nil` when `t` is past the end. Length-0 rows are never returned.
    ///
    /// Without reading a row when its chunk's rows all have one tag length (as for
    /// ``tagOffset(ofRow:)``); otherwise the chunk's rows are read up to the one found. Measured
    /// with `make bench-service`'s tag look-ups (100,000 rows, one tag each): reading half a
    /// chunk's rows, each a cache miss, was 7% of the server's samples (`perf`); without it,
    /// server CPU went from 19.2 to 18.5 µs a request (means of six alternating `wrk` runs, half
    /// with the two servers swapped).
    func row(containingTag t: Int) -> (index: Int, tagOffset: Int)? {
        guard t >= 0, t < tagCount else { return nil }
        let (k, before) = chunk(where: t) { $0.tags }
        var tag = before.tags
        var index = before.rows
        let stride = withChunk(k) { $0.tagStride }
        if stride > 0 {
            // The chunk holds tags, so its rows have length `stride` (never 0) and `t` is in one.
            let j = (t - tag) / stride
            return (index + j, tag + j * stride)
        }
        return withRows(inChunk: k) { rows -> (index: Int, tagOffset: Int)? in
            for r in rows {
                let length = r._withUnsafeGuaranteedRef { $0.tagLength }
                if t < tag + length { return (index, tag) }
                tag += length
                index += 1
            }
            return nil
        }
    }

    /// Index of the first row ordered after (`strictly == true`) or at-or-after `row`'s position
    /// (the row itself, or one made for a search by key: ``Row/position(_:_:)``), given that it
    /// is at least `start` (every row before `start` is ordered before it). (`order` by pointer:
    /// a page request reads it from the shared definition uncopied.)
    ///
    /// From 0 it is a binary search over the chunks' last rows, then within one chunk. From a
    /// later row it gallops first (the chunk of `start`, then 1, 2, 4… chunks on) and searches
    /// only the span it lands in: a batch inserts its rows in order, each a few chunks after the
    /// one before, and every probe reads a row elsewhere in memory (O(log gap) probes instead
    /// of O(log chunks); `sectional-bench batch`).
    ///
    /// Each probe first compares heads (``SortKey/head(id:)``): a chunk's from its directory slot,
    /// a row's from the row, so a probe they decide reads neither the chunk nor the key's strings.
    func lowerBound(of row: Row, order: UnsafePointer<RowOrder>, strictly: Bool, from start: Int = 0) -> Int {
        withExtendedLifetime(row) { lowerBound(Probe(row, order: order, strictly: strictly), from: start) }
    }

    /// ``lowerBound(of:order:strictly:from:)`` from 0 when the answer is likely `guess`: the
    /// rows around it are compared with the key first. When the key falls between them the
    /// guess is the answer; when it lies after both, the search gallops on from the guess (a
    /// few rows deleted before it: O(log gap) probes); otherwise, or without a guess, it
    /// searches from the start.
    ///
    /// A page token's guess (where the next page began when it was written) holds while no row
    /// was inserted or deleted before it, and then saves a search whose every probe reads a row
    /// elsewhere in memory: 3.5 µs of the 5.6 a random page took to cut in the server (timed by
    /// hand under `make bench-service`'s pages by token, 100,000 rows).
    func lowerBound(_ key: SortKey, _ id: String, order: UnsafePointer<RowOrder>, strictly: Bool, guess: Int?) -> Int {
        let at = Row.position(key, id)
        return withExtendedLifetime(at) {
            let probe = Probe(at, order: order, strictly: strictly)
            @inline(__always)
            func after(_ i: Int) -> Bool {
                withRow(at: i) { row in probe.after(head: row.keyHead) { Unmanaged.passUnretained(row) } }
            }
            guard let guess, guess >= 0, guess <= count, guess == 0 || !after(guess - 1) else { return lowerBound(probe, from: 0) }
            if guess == count || after(guess) { return guess }
            return lowerBound(probe, from: guess + 1)
        }
    }

    private func lowerBound(_ probe: Probe, from start: Int) -> Int {
        let k = chunk(holding: probe, from: start)
        if k == chunkCount { return count }
        let first = k > 0 ? ends(through: k - 1).rows : 0
        let a = withRows(inChunk: k) { rows in
            var a = max(0, start - first), b = rows.count
            while a < b {
                let mid = (a + b) >> 1
                if probe.after(head: rows[mid]._withUnsafeGuaranteedRef { $0.keyHead }, { rows[mid] }) { b = mid } else { a = mid + 1 }
            }
            return a
        }
        return first + a
    }

    /// Index of `row` itself (this very object), at or after `start` as for
    /// ``lowerBound(of:order:strictly:from:)``; nil when the sequence does not hold it. Its
    /// chunk is found as `lowerBound` finds it; then the chunk's row references are compared with
    /// `row`'s, which reads no row.
    ///
    /// For every caller that holds a claim's row, which is the row its section holds (a row-id
    /// look-up, a write moving or removing the row it replaces). The binary search by key inside
    /// the chunk ended among rows whose heads tie (names repeat: a name's rows are ordered by id),
    /// each of those probes a row read, a cache miss: 8% of a row-id look-up's samples (`perf`,
    /// `make bench-service`). Keeping the heads in the chunk instead, so that probes read no row
    /// until heads tie, changed nothing measurable (five alternating rounds): the ties were the cost.
    func index(ofRow row: Row, order: UnsafePointer<RowOrder>, from start: Int = 0) -> Int? {
        let k = withExtendedLifetime(row) { chunk(holding: Probe(row, order: order, strictly: false), from: start) }
        guard k < chunkCount else { return nil }
        let target = Unmanaged.passUnretained(row).toOpaque()
        let first = k > 0 ? ends(through: k - 1).rows : 0
        return withRows(inChunk: k) { rows in
            rows[max(0, start - first)...].firstIndex { $0.toOpaque() == target }
        }.map { first + $0 }
    }

    /// A search's position — a row at it, which the caller keeps alive for the search — with
    /// its head in the search's direction, and whether rows equal to it count as after it.
    /// Plain values only (no strings), so that passing it around retains nothing.
    private struct Probe {
        let row: Unmanaged<Row>
        let head: UInt64
        let order: UnsafePointer<RowOrder>
        let strictly: Bool

        init(_ row: Row, order: UnsafePointer<RowOrder>, strictly: Bool) {
            self.row = Unmanaged.passUnretained(row)
            head = order.pointee.head(row.keyHead)
            self.order = order
            self.strictly = strictly
        }

        /// Whether a row is after the probe: by the row's head when it differs from the probe's,
        /// else by the row's position (`other()` is called only then).
        @inline(__always)
        func after(head rowHead: UInt64, _ other: () -> Unmanaged<Row>) -> Bool {
            let h = order.pointee.head(rowHead)
            if h != head {
                assert((h > head) == after(other()), "a head contradicts the order")
                return h > head
            }
            return after(other())
        }

        @inline(__always)
        private func after(_ other: Unmanaged<Row>) -> Bool {
            let c = Row.compare(other, row, order: order)
            return strictly ? c > 0 : c >= 0
        }
    }

    /// The first chunk whose last row is after (or at) the probe's key, ``chunkCount`` when none
    /// is; from the chunk of row `start` on (see ``lowerBound(of:order:strictly:from:)``).
    private func chunk(holding probe: Probe, from start: Int) -> Int {
        @inline(__always)
        func lastAfter(_ k: Int) -> Bool {
            probe.after(head: entry(k).lastHead) { withRows(inChunk: k) { $0[$0.count - 1] } }
        }
        var lo = 0, hi = chunkCount
        if start > 0 {
            guard start < count else { return chunkCount }
            lo = chunkIndex(ofRow: start).chunk
            hi = lo
            var step = 1
            while hi < chunkCount && !lastAfter(hi) {
                lo = hi + 1
                hi = lo + step
                step <<= 1
            }
            hi = min(hi, chunkCount)
        }
        while lo < hi {
            let mid = (lo + hi) >> 1
            if lastAfter(mid) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    /// Calls `body` once per chunk overlapping rows `start ..< start+n` (clamped to the end),
    /// with that chunk's slice of rows (lent for the call) and the index of the slice's first row.
    @inline(__always)
    func forEachSlice(from start: Int, count n: Int, _ body: (UnsafeBufferPointer<Unmanaged<Row>>, Int) -> Void) {
        let total = count
        guard n > 0, start < total else { return }
        var (k, s) = chunkIndex(ofRow: start)
        var i = start
        let end = min(start + n, total)
        while i < end {
            let chunkRows = withRows(inChunk: k) { rows in
                let from = i - s
                let take = min(rows.count - from, end - i)
                body(UnsafeBufferPointer(rebasing: rows[from..<(from + take)]), i)
                i += take
                return rows.count
            }
            s += chunkRows
            k += 1
        }
    }
}
