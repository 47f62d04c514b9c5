/// The ordered rows of one section, as a persistent chunked sequence.
///
/// Rows sit in chunks of at most ``maxChunk``. The chunk directory has two levels: pages of
/// ``pageSize`` chunks (``ChunkPage``, each with the prefix sums of rows and tags through each
/// of its chunks), and the prefix sums through each page. Changing one row of a snapshot copies
/// the page list, one page and one chunk — never all rows, nor all chunks — and index and tag
/// look-ups are binary searches over the pages' sums, then one page's.
///
/// Why pages: a write into a shared section copies its directory, and copying a directory
/// retains every chunk in it, each a separate allocation. With one flat directory that was
/// hundreds of chunks in a big section, a quarter of the time of `sectional-bench model`'s
/// upserts into 1,000,000 rows (`perf`: 7,133 samples of 31,744). With pages, the upsert's p50
/// went from 61.3 to 47.3 µs (medians of 12 alternating rounds), and page reads did not move
/// (callgrind over 20,000 pages: 1.6% more instructions, the same cache misses).
///
/// Chunks and pages are unchanged after a snapshot is published (they are only mutated while
/// uniquely referenced), which is what makes the `@unchecked Sendable` sound.
struct RowSequence: @unchecked Sendable {
    static let buildChunk = 96
    static let maxChunk = 192
    /// Chunks per directory page: about the square root of the chunk count of the model
    /// benchmark's sections (700), so a write copies some 22 page references and 32 slots.
    static let pageSize = 32

    /// The directory's pages, all full but the last.
    private var pages: [ChunkPage] = []
    /// The prefix sums through each page (`pageEnds[p]` counts pages 0…p).
    private var pageEnds: [ChunkEnds] = []
    /// Number of chunks.
    private(set) var chunkCount = 0

    init() {}

    /// A sequence of rows already in order.
    init(sorted rows: ContiguousArray<Row>) {
        var chunks: [RowChunk] = []
        var start = 0
        while start < rows.count {
            let end = min(start + RowSequence.buildChunk, rows.count)
            chunks.append(RowChunk.make(rows[start..<end]))
            start = end
        }
        replaceChunks(chunks)
    }

    var count: Int { pageEnds.last?.rows ?? 0 }
    var tagCount: Int { pageEnds.last?.tags ?? 0 }
    var isEmpty: Bool { chunkCount == 0 }

    /// The chunks in order (a new array: for checks and tests).
    var chunks: [RowChunk] { withRowsView { v in (0..<chunkCount).map { v.chunk($0) } } }

    /// Replaces the whole chunk directory (see ``merge(removing:inserting:order:)``).
    mutating func replaceChunks(_ new: [RowChunk]) {
        replaceChunks(0..<chunkCount, with: new)
    }

    /// Replaces chunks `range` by `new`: the pages before the one holding `range`'s first chunk
    /// are kept, the rest made anew (a chunk added or removed moves every chunk after it to
    /// another slot). Arrays sized to their contents (see ``ListSnapshot/recomputeStarts()``:
    /// changing a shared array in place would inherit, and ratchet, its capacity).
    private mutating func replaceChunks(_ range: Range<Int>, with new: [RowChunk]) {
        let size = RowSequence.pageSize
        let p0 = range.lowerBound / size
        var moved: [RowChunk] = []
        moved.reserveCapacity(chunkCount - p0 * size - range.count + new.count)
        withRowsView { v in
            for k in (p0 * size)..<range.lowerBound { moved.append(v.chunk(k)) }
            moved.append(contentsOf: new)
            for k in range.upperBound..<chunkCount { moved.append(v.chunk(k)) }
        }
        let n = p0 + (moved.count + size - 1) / size
        var outPages: [ChunkPage] = []
        var outEnds: [ChunkEnds] = []
        outPages.reserveCapacity(n)
        outEnds.reserveCapacity(n)
        outPages.append(contentsOf: pages[..<p0])
        outEnds.append(contentsOf: pageEnds[..<p0])
        var sums = outEnds.last ?? .zero
        var i = 0
        while i < moved.count {
            let page = ChunkPage.make(moved[i..<min(i + size, moved.count)])
            sums = sums + page.total
            outPages.append(page)
            outEnds.append(sums)
            i += size
        }
        pages = outPages
        pageEnds = outEnds
        chunkCount = p0 * size + moved.count
    }

    /// Calls `body` with chunk `k` made uniquely referenced (its page too, copied first if
    /// shared; see ``ChunkPage/withUniqueChunk(_:room:_:)``), then adds `delta(result)` to the
    /// sums of chunks `k…`.
    @inline(__always) @discardableResult
    private mutating func changeChunk<R>(_ k: Int, room: Bool = false, _ body: (RowChunk) -> R,
                                         delta: (R) -> ChunkEnds) -> R {
        let (p, c) = (k / RowSequence.pageSize, k % RowSequence.pageSize)
        if !isKnownUniquelyReferenced(&pages[p]) { pages[p] = pages[p].copy() }
        let page = pages[p]
        let result = page.withUniqueChunk(c, room: room, body)
        let d = delta(result)
        if d.rows != 0 || d.tags != 0 {
            page.shiftEnds(from: c, by: d)
            pageEnds.withUnsafeMutableBufferPointer { ends in
                for q in p..<ends.count { ends[q] = ends[q] + d }
            }
        }
        return result
    }

    /// The chunk holding row `i` and the index of the chunk's first row.
    @inline(__always)
    func chunkIndex(ofRow i: Int) -> (chunk: Int, start: Int) { withRowsView { $0.chunkIndex(ofRow: i) } }

    /// Tags used by rows before row `i`.
    func tagOffset(ofRow i: Int) -> Int { withRowsView { $0.tagOffset(ofRow: i) } }

    /// Lends the storage to `body` as a reference-free view, valid only inside `body` (see
    /// ``RowsView``). The one way to read rows unretained. Costs a retain and release of each
    /// of the directory's two buffers (the compiler cannot prove `body` leaves the sequence
    /// alone); pages, chunks and rows are then read without any: pages from the directory as
    /// `Unmanaged`, chunks and rows from the page and the chunk themselves (see ``RowChunk``).
    @inline(__always)
    func withRowsView<R>(_ body: (RowsView) -> R) -> R {
        let n = chunkCount
        return pages.withUnsafeBufferPointer { pages in
            pageEnds.withUnsafeBufferPointer { ends in
                pages.withMemoryRebound(to: Unmanaged<ChunkPage>.self) { body(RowsView(pages: $0, pageEnds: ends, chunkCount: n)) }
            }
        }
    }

    /// The row whose tag range contains tag offset `t` (relative to the section), and its
    /// tag offset; `nil` when `t` is past the end. Length-0 rows are never returned.
    func row(containingTag t: Int) -> (index: Int, tagOffset: Int)? { withRowsView { $0.row(containingTag: t) } }

    /// Index of the first row ordered after (`strictly == true`) or at-or-after `row`'s position,
    /// which is at least `start` (see ``RowsView/lowerBound(of:order:strictly:from:)``).
    func lowerBound(of row: Row, order: RowOrder, strictly: Bool, from start: Int = 0) -> Int {
        withUnsafePointer(to: order) { order in withRowsView { $0.lowerBound(of: row, order: order, strictly: strictly, from: start) } }
    }

    /// Index of `row` itself, if this sequence holds it at or after `start` (see
    /// ``RowsView/index(ofRow:order:from:)``).
    func index(ofRow row: Row, order: RowOrder, from start: Int = 0) -> Int? {
        withUnsafePointer(to: order) { order in withRowsView { $0.index(ofRow: row, order: order, from: start) } }
    }

    /// The room a chunk of `count` rows gets when it is copied or grown for an insert: double,
    /// capped at ``maxChunk``, as an array would grow. A shared chunk is copied with room for
    /// more than the one insert it is copied for, because a batch puts several rows into each
    /// chunk it touches: copying with room for one, then growing on the next insert, built
    /// four chunks per import batch where one does (`sectional-bench batch` under callgrind).
    /// The room is sized to the rows, not to the original's capacity, so it cannot ratchet.
    @inline(__always)
    static func roomForInserts(_ count: Int) -> Int { min(max(2 * count, count + 1), maxChunk) }

    /// Inserts a row at its ordered position, which is at least `start` (a batch inserting rows
    /// in order passes the index after the previous one); returns its index.
    @discardableResult
    mutating func insert(_ row: Row, order: RowOrder, from start: Int = 0) -> Int {
        if chunkCount == 0 {
            replaceChunks([RowChunk.make(CollectionOfOne(row))])
            return 0
        }
        let i = lowerBound(of: row, order: order, strictly: false, from: start)
        let (k, s, n) = withRowsView { v in
            let (k, s) = v.chunkIndex(ofRow: i)
            return (k, s, v.withChunk(k) { $0.count })
        }
        if n >= RowSequence.maxChunk {
            // A full chunk and the new row become two new halves (its rows moved when unique).
            let (p, c) = (k / RowSequence.pageSize, k % RowSequence.pageSize)
            let moving = isKnownUniquelyReferenced(&pages[p]) && pages[p].holdsUniquely(chunk: c)
            let (left, right) = withRowsView { $0.chunk(k) }.split(inserting: row, at: i - s,
                                                                   capacity: RowSequence.roomForInserts((n + 1) / 2), moving: moving)
            replaceChunks(k..<(k + 1), with: [left, right])
        } else {
            changeChunk(k, room: true, { $0.insert(row, at: i - s) }, delta: { ChunkEnds(rows: 1, tags: row.tagLength) })
        }
        return i
    }

    /// Replaces row `i` by a row with the same sort key and id.
    mutating func replace(at i: Int, with row: Row) {
        let (k, s) = chunkIndex(ofRow: i)
        changeChunk(k, { $0.replace(at: i - s, with: row) }, delta: { ChunkEnds(rows: 0, tags: $0) })
    }

    /// Removes row `i`; returns it.
    @discardableResult
    mutating func remove(at i: Int) -> Row {
        let (k, s, left, next) = withRowsView { v in
            let (k, s) = v.chunkIndex(ofRow: i)
            return (k, s, v.withChunk(k) { $0.count } - 1, k + 1 < v.chunkCount ? v.withChunk(k + 1) { $0.count } : nil)
        }
        if left == 0 || (left < RowSequence.maxChunk / 8 && next.map { left + $0 <= RowSequence.buildChunk } == true) {
            // The chunk empties, or is merged with its right neighbour to keep the directory short
            // (either way new pages follow; the chunk, a few rows, is copied rather than changed).
            let chunk = withRowsView { $0.chunk(k) }.copy(capacity: left + 1)
            let row = chunk.remove(at: i - s)
            if left == 0 {
                replaceChunks(k..<(k + 1), with: [])
            } else {
                let right = withRowsView { $0.chunk(k + 1) }
                replaceChunks(k..<(k + 2), with: [RowChunk.joined(chunk, right)])
            }
            return row
        }
        return changeChunk(k, { $0.remove(at: i - s) }, delta: { ChunkEnds(rows: -1, tags: -$0.tagLength) })
    }

    /// The first row index whose type is `type`.
    func firstIndex(ofType type: String) -> Int? {
        withRowsView { v in
            var start = 0
            for k in 0..<v.chunkCount {
                let (j, n) = v.withChunk(k) { c -> (Int?, Int) in
                    guard c.types.contains(where: { codePointEqual($0, type) }) else { return (nil, c.count) }
                    return (c.withUnretainedRows { rows in rows.firstIndex { $0._withUnsafeGuaranteedRef { codePointEqual($0.type, type) } } }, c.count)
                }
                if let j { return start + j }
                start += n
            }
            return nil
        }
    }
}
