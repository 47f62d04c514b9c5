/// The prefix sums through one chunk of a ``RowSequence``'s directory: rows and tags of chunks
/// 0…k (this one included). Plain data, so copying a directory's sums is one `memcpy`.
struct ChunkEnds {
    var rows: Int
    var tags: Int
}

/// The chunk holding row `i` and the index of the chunk's first row, given the directory's
/// prefix sums (binary search over the row ends).
@inline(__always)
func chunkIndex<Ends: RandomAccessCollection<ChunkEnds>>(ofRow i: Int, ends: Ends) -> (chunk: Int, start: Int) where Ends.Index == Int {
    var lo = 0, hi = ends.count - 1
    while lo < hi {
        let mid = (lo + hi) >> 1
        if ends[mid].rows > i { hi = mid } else { lo = mid + 1 }
    }
    return (lo, lo > 0 ? ends[lo - 1].rows : 0)
}

/// A read-only view of a ``RowSequence``'s storage that holds no references: the directory's
/// two arrays are plain pointers, chunk and row references are read from them as `Unmanaged`.
///
/// Reading through it touches no reference count, so threads serving pages from one shared
/// snapshot do not fight over the cache lines of its rows, chunks and arrays. A view is lent by
/// ``RowSequence/withRowsView(_:)`` to a closure and is valid only inside it (the sequence is
/// borrowed, alive and unmodified for that long): never store it or return it from the closure.
/// Rows are lent the same way — ``withRow(at:_:)``, ``withRows(inChunk:_:)``,
/// ``forEachSlice(from:count:_:)`` — as references borrowed for the duration of the call.
struct RowsView {
    /// The chunks, read as `Unmanaged` (the same layout as the references): read as `RowChunk`
    /// each would be retained.
    private let chunks: UnsafeBufferPointer<Unmanaged<RowChunk>>
    private let ends: UnsafeBufferPointer<ChunkEnds>

    fileprivate init(chunks: UnsafeBufferPointer<Unmanaged<RowChunk>>, ends: UnsafeBufferPointer<ChunkEnds>) {
        self.chunks = chunks
        self.ends = ends
    }

    /// Number of rows.
    var count: Int { ends.isEmpty ? 0 : ends[ends.count - 1].rows }

    /// Number of tags.
    private var tagCount: Int { ends.isEmpty ? 0 : ends[ends.count - 1].tags }

    /// Number of chunks.
    var chunkCount: Int { chunks.count }

    /// Rows in chunks 0…k.
    @inline(__always)
    private func rowEnd(_ k: Int) -> Int { ends[k].rows }

    /// Tags of chunks 0…k.
    @inline(__always)
    private func tagEnd(_ k: Int) -> Int { ends[k].tags }

    /// The chunk holding row `i` and the index of the chunk's first row.
    @inline(__always)
    func chunkIndex(ofRow i: Int) -> (chunk: Int, start: Int) { ListModel.chunkIndex(ofRow: i, ends: ends) }

    /// Lends chunk `k`'s rows, unretained, to `body` (valid only inside it).
    @inline(__always)
    func withRows<R>(inChunk k: Int, _ body: (UnsafeBufferPointer<Unmanaged<Row>>) -> R) -> R {
        chunks[k]._withUnsafeGuaranteedRef { $0.withUnretainedRows(body) }
    }

    /// Lends row `i` (0 ≤ i < count) to `body`, borrowed: no reference count is touched.
    @inline(__always)
    func withRow<R>(at i: Int, _ body: (Row) -> R) -> R {
        let (k, s) = chunkIndex(ofRow: i)
        return withRows(inChunk: k) { $0[i - s]._withUnsafeGuaranteedRef(body) }
    }

    /// Tags used by rows before row `i`.
    @inline(__always)
    func tagOffset(ofRow i: Int) -> Int {
        if i >= count { return tagCount }
        let (k, s) = chunkIndex(ofRow: i)
        var t = k > 0 ? tagEnd(k - 1) : 0
        withRows(inChunk: k) { rows in
            for j in 0..<(i - s) { t += rows[j]._withUnsafeGuaranteedRef { $0.tagLength } }
        }
        return t
    }

    /// The row whose tag range contains tag offset `t` (relative to the sequence), and its tag
    /// offset; `nil` when `t` is past the end. Length-0 rows are never returned.
    func row(containingTag t: Int) -> (index: Int, tagOffset: Int)? {
        guard t >= 0, t < tagCount else { return nil }
        var lo = 0, hi = ends.count - 1
        while lo < hi {
            let mid = (lo + hi) >> 1
            if tagEnd(mid) > t { hi = mid } else { lo = mid + 1 }
        }
        var tag = lo > 0 ? tagEnd(lo - 1) : 0
        var index = lo > 0 ? rowEnd(lo - 1) : 0
        return withRows(inChunk: lo) { rows -> (index: Int, tagOffset: Int)? in
            for r in rows {
                let length = r._withUnsafeGuaranteedRef { $0.tagLength }
                if t < tag + length { return (index, tag) }
                tag += length
                index += 1
            }
            return nil
        }
    }

    /// Index of the first row ordered after (`strictly == true`) or at-or-after the key, given
    /// that it is at least `start` (every row before `start` is ordered before the key).
    /// (`order` by pointer: a page request reads it from the shared definition uncopied.)
    ///
    /// From 0 it is a binary search over the chunks' last rows, then within one chunk. From a
    /// later row it gallops first (the chunk of `start`, then 1, 2, 4… chunks on) and searches
    /// only the span it lands in: a batch inserts its rows in order, each a few chunks after the
    /// one before, and every probe reads a row elsewhere in memory (O(log gap) probes instead
    /// of O(log chunks); `sectional-bench batch`).
    func lowerBound(_ key: SortKey, _ id: String, order: UnsafePointer<RowOrder>, strictly: Bool, from start: Int = 0) -> Int {
        @inline(__always)
        func after(_ r: Unmanaged<Row>) -> Bool {
            r._withUnsafeGuaranteedRef { row in
                let c = order.pointee.compare(row.sortKey, row.id, key, id)
                return strictly ? c > 0 : c >= 0
            }
        }
        @inline(__always)
        func lastAfter(_ k: Int) -> Bool { withRows(inChunk: k) { after($0[$0.count - 1]) } }
        // First chunk whose last row is ≥ (or >) the key.
        var lo = 0, hi = chunks.count
        if start > 0 {
            guard start < count else { return count }
            lo = chunkIndex(ofRow: start).chunk
            hi = lo
            var step = 1
            while hi < chunks.count && !lastAfter(hi) {
                lo = hi + 1
                hi = lo + step
                step <<= 1
            }
            hi = min(hi, chunks.count)
        }
        while lo < hi {
            let mid = (lo + hi) >> 1
            if lastAfter(mid) { hi = mid } else { lo = mid + 1 }
        }
        if lo == chunks.count { return count }
        let first = lo > 0 ? rowEnd(lo - 1) : 0
        let a = withRows(inChunk: lo) { rows in
            var a = max(0, start - first), b = rows.count
            while a < b {
                let mid = (a + b) >> 1
                if after(rows[mid]) { b = mid } else { a = mid + 1 }
            }
            return a
        }
        return first + a
    }

    /// Index of the row with this key and id, if present (at or after `start`, as for
    /// ``lowerBound(_:_:order:strictly:from:)``).
    func index(of key: SortKey, _ id: String, order: UnsafePointer<RowOrder>, from start: Int = 0) -> Int? {
        let i = lowerBound(key, id, order: order, strictly: false, from: start)
        guard i < count else { return nil }
        let same = withRow(at: i) { r in codePointEqual(r.id, id) && order.pointee.compare(r.sortKey, r.id, key, id) == 0 }
        return same ? i : nil
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

/// The ordered rows of one section, as a persistent chunked sequence.
///
/// Rows sit in chunks of at most ``maxChunk``; the chunk directory is two copy-on-write arrays
/// (the chunks, and the prefix sums of row counts and tag lengths through each), so changing one
/// row of a snapshot copies the directory and one chunk, never all rows, and index and tag
/// look-ups are binary searches over the sums.
///
/// Two arrays, not one array of entries: a write into a shared section copies its directory
/// (hundreds of chunks in a big section), and an array of class references copies in the
/// runtime's retain loop and a plain-data array in one `memcpy`, where an array of structs
/// holding a reference copies (and later destroys) element by element through the struct's
/// value witnesses. With one array of entries, copying directories was a quarter of the time of
/// `sectional-bench model`'s upserts into 1,000,000 rows (`perf`: 7,864 samples of 31,744; as two
/// arrays, 7,133).
///
/// Chunks are unchanged after a snapshot is published (`RowChunk` instances are only mutated
/// while uniquely referenced), which is what makes the `@unchecked Sendable` sound.
struct RowSequence: @unchecked Sendable {
    static let buildChunk = 96
    static let maxChunk = 192

    /// The chunks in order.
    private(set) var chunks: [RowChunk] = []
    /// The prefix sums through each chunk (`ends[k]` counts chunks 0…k).
    private var ends: [ChunkEnds] = []

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

    var count: Int { ends.last?.rows ?? 0 }
    var tagCount: Int { ends.last?.tags ?? 0 }
    var isEmpty: Bool { chunks.isEmpty }
    /// Number of chunks.
    var chunkCount: Int { chunks.count }

    /// Replaces the whole chunk directory (see ``merge(removing:inserting:order:)``).
    mutating func replaceChunks(_ new: [RowChunk]) {
        replaceChunks(0..<chunks.count, with: new)
    }

    /// Replaces chunks `range` by `new` and recomputes the prefix sums after them, into a new
    /// directory sized to its chunks (see ``ListSnapshot/recomputeStarts()``: changing a shared
    /// array in place would inherit, and ratchet, its capacity).
    private mutating func replaceChunks(_ range: Range<Int>, with new: [RowChunk]) {
        let n = chunks.count - range.count + new.count
        var outChunks: [RowChunk] = []
        var outEnds: [ChunkEnds] = []
        outChunks.reserveCapacity(n)
        outEnds.reserveCapacity(n)
        outChunks.append(contentsOf: chunks[..<range.lowerBound])
        outEnds.append(contentsOf: ends[..<range.lowerBound])
        var sums = outEnds.last ?? ChunkEnds(rows: 0, tags: 0)
        @inline(__always)
        func append(_ c: RowChunk) {
            sums.rows += c.count
            sums.tags += c.tagTotal
            outChunks.append(c)
            outEnds.append(sums)
        }
        for c in new { append(c) }
        for c in chunks[range.upperBound...] { append(c) }
        chunks = outChunks
        ends = outEnds
    }

    /// Adds `rows` and `tags` to the sums of chunks `k…`, after a row went into or out of chunk `k`.
    @inline(__always)
    private mutating func shiftEnds(from k: Int, rows: Int, tags: Int) {
        ends.withUnsafeMutableBufferPointer { ends in
            for j in k..<ends.count {
                ends[j].rows += rows
                ends[j].tags += tags
            }
        }
    }

    /// The chunk holding row `i` and the index of the chunk's first row.
    @inline(__always)
    func chunkIndex(ofRow i: Int) -> (chunk: Int, start: Int) { ListModel.chunkIndex(ofRow: i, ends: ends) }

    /// Tags used by rows before row `i`.
    func tagOffset(ofRow i: Int) -> Int { withRowsView { $0.tagOffset(ofRow: i) } }

    /// Lends the storage to `body` as a reference-free view, valid only inside `body` (see
    /// ``RowsView``). The one way to read rows unretained. Costs a retain and release of each
    /// of the directory's two buffers (the compiler cannot prove `body` leaves the sequence
    /// alone); chunks and rows are then read without any: chunks from the directory as
    /// `Unmanaged`, rows from the chunk itself (see ``RowChunk``).
    @inline(__always)
    func withRowsView<R>(_ body: (RowsView) -> R) -> R {
        chunks.withUnsafeBufferPointer { chunks in
            ends.withUnsafeBufferPointer { ends in
                chunks.withMemoryRebound(to: Unmanaged<RowChunk>.self) { body(RowsView(chunks: $0, ends: ends)) }
            }
        }
    }

    /// The row whose tag range contains tag offset `t` (relative to the section), and its
    /// tag offset; `nil` when `t` is past the end. Length-0 rows are never returned.
    func row(containingTag t: Int) -> (index: Int, tagOffset: Int)? { withRowsView { $0.row(containingTag: t) } }

    /// Index of the first row ordered after (`strictly == true`) or at-or-after the key, which
    /// is at least `start` (see ``RowsView/lowerBound(_:_:order:strictly:from:)``).
    func lowerBound(_ key: SortKey, _ id: String, order: RowOrder, strictly: Bool, from start: Int = 0) -> Int {
        withUnsafePointer(to: order) { order in withRowsView { $0.lowerBound(key, id, order: order, strictly: strictly, from: start) } }
    }

    /// Index of the row with this key and id, if present (at or after `start`).
    func index(of key: SortKey, _ id: String, order: RowOrder, from start: Int = 0) -> Int? {
        withUnsafePointer(to: order) { order in withRowsView { $0.index(of: key, id, order: order, from: start) } }
    }

    /// The room a chunk of `count` rows gets when it is copied or grown for an insert: double,
    /// capped at ``maxChunk``, as an array would grow. A shared chunk is copied with room for
    /// more than the one insert it is copied for, because a batch puts several rows into each
    /// chunk it touches: copying with room for one, then growing on the next insert, built
    /// four chunks per import batch where one does (`sectional-bench batch` under callgrind).
    /// The room is sized to the rows, not to the original's capacity, so it cannot ratchet.
    @inline(__always)
    static func roomForInserts(_ count: Int) -> Int { min(max(2 * count, count + 1), maxChunk) }

    /// Makes chunk `k` uniquely referenced, copying it if a snapshot shares it; with `room`,
    /// also makes sure it can take one more row (see ``roomForInserts(_:)``; a unique full
    /// chunk moves its rows, none retained).
    @inline(__always)
    private mutating func uniqueChunk(_ k: Int, room: Bool = false) {
        let n = chunks[k].count
        if !isKnownUniquelyReferenced(&chunks[k]) {
            chunks[k] = chunks[k].copy(capacity: room ? RowSequence.roomForInserts(n) : n)
        } else if room && n == chunks[k].rowCapacity {
            chunks[k] = chunks[k].moved(capacity: RowSequence.roomForInserts(n))
        }
    }

    /// Inserts a row at its ordered position, which is at least `start` (a batch inserting rows
    /// in order passes the index after the previous one); returns its index.
    @discardableResult
    mutating func insert(_ row: Row, order: RowOrder, from start: Int = 0) -> Int {
        if chunks.isEmpty {
            replaceChunks([RowChunk.make(CollectionOfOne(row))])
            return 0
        }
        let i = lowerBound(row.sortKey, row.id, order: order, strictly: false, from: start)
        let (k, s) = i >= count ? (chunks.count - 1, count - chunks[chunks.count - 1].count) : chunkIndex(ofRow: i)
        let n = chunks[k].count
        if n >= RowSequence.maxChunk {
            // A full chunk and the new row become two new halves (its rows moved when unique).
            let moving = isKnownUniquelyReferenced(&chunks[k])
            let (left, right) = chunks[k].split(inserting: row, at: i - s,
                                                       capacity: RowSequence.roomForInserts((n + 1) / 2), moving: moving)
            replaceChunks(k..<(k + 1), with: [left, right])
        } else {
            uniqueChunk(k, room: true)
            chunks[k].insert(row, at: i - s)
            shiftEnds(from: k, rows: 1, tags: row.tagLength)
        }
        return i
    }

    /// Replaces row `i` by a row with the same sort key and id.
    mutating func replace(at i: Int, with row: Row) {
        let (k, s) = chunkIndex(ofRow: i)
        uniqueChunk(k)
        let delta = chunks[k].replace(at: i - s, with: row)
        if delta != 0 { shiftEnds(from: k, rows: 0, tags: delta) }
    }

    /// Removes row `i`; returns it.
    @discardableResult
    mutating func remove(at i: Int) -> Row {
        let (k, s) = chunkIndex(ofRow: i)
        uniqueChunk(k)
        let c = chunks[k]
        let row = c.remove(at: i - s)
        if c.count == 0 {
            replaceChunks(k..<(k + 1), with: [])
        } else if c.count < RowSequence.maxChunk / 8, k + 1 < chunks.count,
                  c.count + chunks[k + 1].count <= RowSequence.buildChunk {
            // Merge a small chunk with its right neighbour to keep the directory short.
            let next = chunks[k + 1]
            replaceChunks(k..<(k + 2), with: [RowChunk.joined(c, next)])
        } else {
            shiftEnds(from: k, rows: -1, tags: -row.tagLength)
        }
        return row
    }

    /// The first row index whose type is `type`.
    func firstIndex(ofType type: String) -> Int? {
        var start = 0
        for c in chunks {
            if c.types.contains(type) {
                let j = c.withUnretainedRows { rows in rows.firstIndex { $0._withUnsafeGuaranteedRef { $0.type == type } } }
                if let j { return start + j }
            }
            start += c.count
        }
        return nil
    }
}
