/// The chunk holding row `i` and the index of the chunk's first row, given `rowEnds[k]` = rows
/// in chunks 0…k (binary search).
@inline(__always)
func chunkIndex<Ends: RandomAccessCollection<Int>>(ofRow i: Int, rowEnds: Ends) -> (chunk: Int, start: Int) where Ends.Index == Int {
    var lo = 0, hi = rowEnds.count - 1
    while lo < hi {
        let mid = (lo + hi) >> 1
        if rowEnds[mid] > i { hi = mid } else { lo = mid + 1 }
    }
    return (lo, lo > 0 ? rowEnds[lo - 1] : 0)
}

/// A read-only view of a ``RowSequence``'s storage that holds no references: chunk and row
/// references are `Unmanaged`, the prefix sums are plain pointers.
///
/// Reading through it touches no reference count, so threads serving pages from one shared
/// snapshot do not fight over the cache lines of its rows, chunks and arrays. A view is lent by
/// ``RowSequence/withRowsView(_:)`` to a closure and is valid only inside it (the sequence is
/// borrowed, alive and unmodified for that long): never store it or return it from the closure.
/// Rows are lent the same way — ``withRow(at:_:)``, ``withRows(inChunk:_:)``,
/// ``forEachSlice(from:count:_:)`` — as references borrowed for the duration of the call.
struct RowsView {
    private let chunks: UnsafeBufferPointer<Unmanaged<RowChunk>>
    /// `rowEnds[k]` = rows in chunks 0…k.
    private let rowEnds: UnsafeBufferPointer<Int>
    /// `tagEnds[k]` = tags of chunks 0…k.
    private let tagEnds: UnsafeBufferPointer<Int>

    fileprivate init(chunks: UnsafeBufferPointer<Unmanaged<RowChunk>>, rowEnds: UnsafeBufferPointer<Int>, tagEnds: UnsafeBufferPointer<Int>) {
        self.chunks = chunks
        self.rowEnds = rowEnds
        self.tagEnds = tagEnds
    }

    /// Number of rows.
    var count: Int { rowEnds.isEmpty ? 0 : rowEnds[rowEnds.count - 1] }

    /// Number of chunks.
    var chunkCount: Int { chunks.count }

    /// The chunk holding row `i` and the index of the chunk's first row.
    @inline(__always)
    func chunkIndex(ofRow i: Int) -> (chunk: Int, start: Int) { ListModel.chunkIndex(ofRow: i, rowEnds: rowEnds) }

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
        if i >= count { return tagEnds.isEmpty ? 0 : tagEnds[tagEnds.count - 1] }
        let (k, s) = chunkIndex(ofRow: i)
        var t = k > 0 ? tagEnds[k - 1] : 0
        withRows(inChunk: k) { rows in
            for j in 0..<(i - s) { t += rows[j]._withUnsafeGuaranteedRef { $0.tagLength } }
        }
        return t
    }

    /// The row whose tag range contains tag offset `t` (relative to the sequence), and its tag
    /// offset; `nil` when `t` is past the end. Length-0 rows are never returned.
    func row(containingTag t: Int) -> (index: Int, tagOffset: Int)? {
        guard t >= 0, !tagEnds.isEmpty, t < tagEnds[tagEnds.count - 1] else { return nil }
        var lo = 0, hi = tagEnds.count - 1
        while lo < hi {
            let mid = (lo + hi) >> 1
            if tagEnds[mid] > t { hi = mid } else { lo = mid + 1 }
        }
        var tag = lo > 0 ? tagEnds[lo - 1] : 0
        var index = lo > 0 ? rowEnds[lo - 1] : 0
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

    /// Index of the first row ordered after (`strictly == true`) or at-or-after the key.
    /// (`order` by pointer: a page request reads it from the shared definition uncopied.)
    func lowerBound(_ key: SortKey, _ id: String, order: UnsafePointer<RowOrder>, strictly: Bool) -> Int {
        @inline(__always)
        func after(_ r: Unmanaged<Row>) -> Bool {
            r._withUnsafeGuaranteedRef { row in
                let c = order.pointee.compare(row.sortKey, row.id, key, id)
                return strictly ? c > 0 : c >= 0
            }
        }
        // First chunk whose last row is ≥ (or >) the key.
        var lo = 0, hi = chunks.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if withRows(inChunk: mid, { after($0[$0.count - 1]) }) { hi = mid } else { lo = mid + 1 }
        }
        if lo == chunks.count { return count }
        let a = withRows(inChunk: lo) { rows in
            var a = 0, b = rows.count
            while a < b {
                let mid = (a + b) >> 1
                if after(rows[mid]) { b = mid } else { a = mid + 1 }
            }
            return a
        }
        return (lo > 0 ? rowEnds[lo - 1] : 0) + a
    }

    /// Index of the row with this key and id, if present.
    func index(of key: SortKey, _ id: String, order: UnsafePointer<RowOrder>) -> Int? {
        let i = lowerBound(key, id, order: order, strictly: false)
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
/// Rows sit in chunks of at most ``maxChunk``; the chunk directory is a copy-on-write array, so
/// changing one row of a snapshot copies the directory and one chunk, never all rows. Prefix
/// sums of row counts and tag lengths per chunk make index and tag look-ups binary searches.
/// Chunks are unchanged after a snapshot is published (`RowChunk` instances are only mutated
/// while uniquely referenced), which is what makes the `@unchecked Sendable` sound.
struct RowSequence: @unchecked Sendable {
    static let buildChunk = 96
    static let maxChunk = 192

    private(set) var chunks: [RowChunk] = []
    /// `rowEnds[k]` = rows in chunks 0…k.
    private(set) var rowEnds: [Int] = []
    /// `tagEnds[k]` = tags of chunks 0…k.
    private(set) var tagEnds: [Int] = []

    init() {}

    /// A sequence of rows already in order.
    init(sorted rows: ContiguousArray<Row>) {
        var start = 0
        while start < rows.count {
            let end = min(start + RowSequence.buildChunk, rows.count)
            chunks.append(RowChunk.make(rows[start..<end]))
            start = end
        }
        recomputePrefixes(from: 0)
    }

    var count: Int { rowEnds.last ?? 0 }
    var tagCount: Int { tagEnds.last ?? 0 }
    var isEmpty: Bool { chunks.isEmpty }

    /// Replaces the whole chunk directory (see ``merge(removing:inserting:order:)``).
    mutating func replaceChunks(_ new: [RowChunk]) {
        chunks = new
        recomputePrefixes(from: 0)
    }

    private mutating func recomputePrefixes(from k: Int) {
        // New arrays sized to the directory (see ``ListSnapshot/recomputeStarts()``: trimming a
        // shared array in place would inherit, and ratchet, its capacity).
        var rows = [Int](), tags = [Int]()
        rows.reserveCapacity(chunks.count)
        tags.reserveCapacity(chunks.count)
        rows.append(contentsOf: rowEnds[..<k])
        tags.append(contentsOf: tagEnds[..<k])
        var r = k > 0 ? rowEnds[k - 1] : 0
        var t = k > 0 ? tagEnds[k - 1] : 0
        for j in k..<chunks.count {
            r += chunks[j].count
            t += chunks[j].tagTotal
            rows.append(r)
            tags.append(t)
        }
        rowEnds = rows
        tagEnds = tags
    }

    /// The chunk holding row `i` and the index of the chunk's first row.
    @inline(__always)
    func chunkIndex(ofRow i: Int) -> (chunk: Int, start: Int) { ListModel.chunkIndex(ofRow: i, rowEnds: rowEnds) }

    /// Tags used by rows before row `i`.
    func tagOffset(ofRow i: Int) -> Int { withRowsView { $0.tagOffset(ofRow: i) } }

    /// Lends the storage to `body` as a reference-free view, valid only inside `body` (see
    /// ``RowsView``). The one way to read rows unretained.
    @inline(__always)
    func withRowsView<R>(_ body: (RowsView) -> R) -> R {
        chunks.withUnsafeBufferPointer { c in
            c.withMemoryRebound(to: Unmanaged<RowChunk>.self) { c in
                rowEnds.withUnsafeBufferPointer { r in
                    tagEnds.withUnsafeBufferPointer { t in body(RowsView(chunks: c, rowEnds: r, tagEnds: t)) }
                }
            }
        }
    }

    /// The row whose tag range contains tag offset `t` (relative to the section), and its
    /// tag offset; `nil` when `t` is past the end. Length-0 rows are never returned.
    func row(containingTag t: Int) -> (index: Int, tagOffset: Int)? { withRowsView { $0.row(containingTag: t) } }

    /// Index of the first row ordered after (`strictly == true`) or at-or-after the key.
    func lowerBound(_ key: SortKey, _ id: String, order: RowOrder, strictly: Bool) -> Int {
        withUnsafePointer(to: order) { order in withRowsView { $0.lowerBound(key, id, order: order, strictly: strictly) } }
    }

    /// Index of the row with this key and id, if present.
    func index(of key: SortKey, _ id: String, order: RowOrder) -> Int? {
        withUnsafePointer(to: order) { order in withRowsView { $0.index(of: key, id, order: order) } }
    }

    /// Makes chunk `k` uniquely referenced, copying it if a snapshot shares it (the copy has
    /// room for one insert); with `room`, also makes sure it can take one more row (a unique
    /// full chunk is copied at double the size, capped at ``maxChunk``, as an array would grow).
    @inline(__always)
    private mutating func uniqueChunk(_ k: Int, room: Bool = false) {
        if !isKnownUniquelyReferenced(&chunks[k]) {
            chunks[k] = chunks[k].copy()
        } else if room && chunks[k].count == chunks[k].rowCapacity {
            chunks[k] = chunks[k].copy(capacity: min(2 * chunks[k].count, RowSequence.maxChunk))
        }
    }

    /// Inserts a row at its ordered position; returns its index.
    @discardableResult
    mutating func insert(_ row: Row, order: RowOrder) -> Int {
        if chunks.isEmpty {
            chunks.append(RowChunk.make(CollectionOfOne(row)))
            recomputePrefixes(from: 0)
            return 0
        }
        let i = lowerBound(row.sortKey, row.id, order: order, strictly: false)
        let (k, s) = i >= count ? (chunks.count - 1, count - chunks[chunks.count - 1].count) : chunkIndex(ofRow: i)
        if chunks[k].count >= RowSequence.maxChunk {
            // A full chunk and the new row become two new halves.
            var rows = chunks[k].rows(0..<chunks[k].count)
            rows.insert(row, at: i - s)
            let half = rows.count / 2
            chunks[k] = RowChunk.make(rows[..<half])
            chunks.insert(RowChunk.make(rows[half...]), at: k + 1)
            recomputePrefixes(from: k)
        } else {
            uniqueChunk(k, room: true)
            chunks[k].insert(row, at: i - s)
            for j in k..<rowEnds.count {
                rowEnds[j] += 1
                tagEnds[j] += row.tagLength
            }
        }
        return i
    }

    /// Replaces row `i` by a row with the same sort key and id.
    mutating func replace(at i: Int, with row: Row) {
        let (k, s) = chunkIndex(ofRow: i)
        uniqueChunk(k)
        let delta = chunks[k].replace(at: i - s, with: row)
        if delta != 0 { for j in k..<tagEnds.count { tagEnds[j] += delta } }
    }

    /// Removes row `i`; returns it.
    @discardableResult
    mutating func remove(at i: Int) -> Row {
        let (k, s) = chunkIndex(ofRow: i)
        uniqueChunk(k)
        let c = chunks[k]
        let row = c.remove(at: i - s)
        if c.count == 0 {
            chunks.remove(at: k)
            recomputePrefixes(from: k)
        } else if c.count < RowSequence.maxChunk / 8, k + 1 < chunks.count,
                  c.count + chunks[k + 1].count <= RowSequence.buildChunk {
            // Merge a small chunk with its right neighbour to keep the directory short.
            let next = chunks[k + 1]
            chunks[k] = RowChunk.make(c.rows(0..<c.count) + next.rows(0..<next.count))
            chunks.remove(at: k + 1)
            recomputePrefixes(from: k)
        } else {
            for j in k..<rowEnds.count {
                rowEnds[j] -= 1
                tagEnds[j] -= row.tagLength
            }
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
