/// One chunk of a ``RowSequence``'s directory, with the prefix sums through it: one array of
/// these rather than three (chunks, row ends, tag ends) makes lending the directory one loan,
/// one retained buffer, and a write's copy of it one allocation.
struct ChunkEntry {
    var chunk: RowChunk
    /// Rows in chunks 0…k (this one included).
    var rowEnd: Int
    /// Tags of chunks 0…k.
    var tagEnd: Int

    /// Where `chunk` lies in an entry, to read it unretained (see ``RowsView``); a constant the
    /// optimizer folds.
    @inline(__always)
    fileprivate static var chunkOffset: Int { MemoryLayout<ChunkEntry>.offset(of: \.chunk)! }
}

/// The chunk holding row `i` and the index of the chunk's first row, given the directory
/// (binary search over the row ends).
@inline(__always)
func chunkIndex<Entries: RandomAccessCollection<ChunkEntry>>(ofRow i: Int, entries: Entries) -> (chunk: Int, start: Int) where Entries.Index == Int {
    var lo = 0, hi = entries.count - 1
    while lo < hi {
        let mid = (lo + hi) >> 1
        if entries[mid].rowEnd > i { hi = mid } else { lo = mid + 1 }
    }
    return (lo, lo > 0 ? entries[lo - 1].rowEnd : 0)
}

/// A read-only view of a ``RowSequence``'s storage that holds no references: the directory is a
/// plain pointer, chunk and row references are read from it as `Unmanaged`.
///
/// Reading through it touches no reference count, so threads serving pages from one shared
/// snapshot do not fight over the cache lines of its rows, chunks and arrays. A view is lent by
/// ``RowSequence/withRowsView(_:)`` to a closure and is valid only inside it (the sequence is
/// borrowed, alive and unmodified for that long): never store it or return it from the closure.
/// Rows are lent the same way — ``withRow(at:_:)``, ``withRows(inChunk:_:)``,
/// ``forEachSlice(from:count:_:)`` — as references borrowed for the duration of the call.
struct RowsView {
    private let entries: UnsafeBufferPointer<ChunkEntry>

    fileprivate init(entries: UnsafeBufferPointer<ChunkEntry>) {
        self.entries = entries
    }

    /// Number of rows.
    var count: Int { entries.isEmpty ? 0 : entries[entries.count - 1].rowEnd }

    /// Number of tags.
    private var tagCount: Int { entries.isEmpty ? 0 : entries[entries.count - 1].tagEnd }

    /// Number of chunks.
    var chunkCount: Int { entries.count }

    /// Rows in chunks 0…k.
    @inline(__always)
    private func rowEnd(_ k: Int) -> Int { entries[k].rowEnd }

    /// Tags of chunks 0…k.
    @inline(__always)
    private func tagEnd(_ k: Int) -> Int { entries[k].tagEnd }

    /// The chunk holding row `i` and the index of the chunk's first row.
    @inline(__always)
    func chunkIndex(ofRow i: Int) -> (chunk: Int, start: Int) { ListModel.chunkIndex(ofRow: i, entries: entries) }

    /// Lends chunk `k`'s rows, unretained, to `body` (valid only inside it). The chunk reference
    /// is loaded from the entry's memory as `Unmanaged` (the same layout): loaded as `RowChunk`
    /// it would be retained.
    @inline(__always)
    func withRows<R>(inChunk k: Int, _ body: (UnsafeBufferPointer<Unmanaged<Row>>) -> R) -> R {
        assert(k >= 0 && k < entries.count, "chunk index out of range")
        let chunk = UnsafeRawPointer(entries.baseAddress! + k).load(fromByteOffset: ChunkEntry.chunkOffset, as: Unmanaged<RowChunk>.self)
        return chunk._withUnsafeGuaranteedRef { $0.withUnretainedRows(body) }
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
        var lo = 0, hi = entries.count - 1
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
        var lo = 0, hi = entries.count
        if start > 0 {
            guard start < count else { return count }
            lo = chunkIndex(ofRow: start).chunk
            hi = lo
            var step = 1
            while hi < entries.count && !lastAfter(hi) {
                lo = hi + 1
                hi = lo + step
                step <<= 1
            }
            hi = min(hi, entries.count)
        }
        while lo < hi {
            let mid = (lo + hi) >> 1
            if lastAfter(mid) { hi = mid } else { lo = mid + 1 }
        }
        if lo == entries.count { return count }
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
/// Rows sit in chunks of at most ``maxChunk``; the chunk directory is a copy-on-write array, so
/// changing one row of a snapshot copies the directory and one chunk, never all rows. Prefix
/// sums of row counts and tag lengths per chunk (in the directory's entries) make index and tag
/// look-ups binary searches. Chunks are unchanged after a snapshot is published (`RowChunk`
/// instances are only mutated while uniquely referenced), which is what makes the
/// `@unchecked Sendable` sound.
struct RowSequence: @unchecked Sendable {
    static let buildChunk = 96
    static let maxChunk = 192

    /// The chunks in order, each with the prefix sums through it.
    private(set) var entries: [ChunkEntry] = []

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

    var count: Int { entries.last?.rowEnd ?? 0 }
    var tagCount: Int { entries.last?.tagEnd ?? 0 }
    var isEmpty: Bool { entries.isEmpty }
    /// Number of chunks.
    var chunkCount: Int { entries.count }

    /// Replaces the whole chunk directory (see ``merge(removing:inserting:order:)``).
    mutating func replaceChunks(_ new: [RowChunk]) {
        replaceChunks(0..<entries.count, with: new)
    }

    /// Replaces chunks `range` by `new` and recomputes the prefix sums after them, into a new
    /// directory sized to its entries (see ``ListSnapshot/recomputeStarts()``: changing a shared
    /// array in place would inherit, and ratchet, its capacity).
    private mutating func replaceChunks(_ range: Range<Int>, with new: [RowChunk]) {
        var out: [ChunkEntry] = []
        out.reserveCapacity(entries.count - range.count + new.count)
        out.append(contentsOf: entries[..<range.lowerBound])
        var r = out.last?.rowEnd ?? 0
        var t = out.last?.tagEnd ?? 0
        @inline(__always)
        func append(_ c: RowChunk) {
            r += c.count
            t += c.tagTotal
            out.append(ChunkEntry(chunk: c, rowEnd: r, tagEnd: t))
        }
        for c in new { append(c) }
        for e in entries[range.upperBound...] { append(e.chunk) }
        entries = out
    }

    /// The chunk holding row `i` and the index of the chunk's first row.
    @inline(__always)
    func chunkIndex(ofRow i: Int) -> (chunk: Int, start: Int) { ListModel.chunkIndex(ofRow: i, entries: entries) }

    /// Tags used by rows before row `i`.
    func tagOffset(ofRow i: Int) -> Int { withRowsView { $0.tagOffset(ofRow: i) } }

    /// Lends the storage to `body` as a reference-free view, valid only inside `body` (see
    /// ``RowsView``). The one way to read rows unretained. Costs one retain and release, of the
    /// directory's buffer (the compiler cannot prove `body` leaves the sequence alone); chunks
    /// and rows are then read without any: chunks from the directory as `Unmanaged`, rows from
    /// the chunk itself (see ``RowChunk``).
    @inline(__always)
    func withRowsView<R>(_ body: (RowsView) -> R) -> R {
        entries.withUnsafeBufferPointer { body(RowsView(entries: $0)) }
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
        let n = entries[k].chunk.count
        if !isKnownUniquelyReferenced(&entries[k].chunk) {
            entries[k].chunk = entries[k].chunk.copy(capacity: room ? RowSequence.roomForInserts(n) : n)
        } else if room && n == entries[k].chunk.rowCapacity {
            entries[k].chunk = entries[k].chunk.moved(capacity: RowSequence.roomForInserts(n))
        }
    }

    /// Inserts a row at its ordered position, which is at least `start` (a batch inserting rows
    /// in order passes the index after the previous one); returns its index.
    @discardableResult
    mutating func insert(_ row: Row, order: RowOrder, from start: Int = 0) -> Int {
        if entries.isEmpty {
            replaceChunks([RowChunk.make(CollectionOfOne(row))])
            return 0
        }
        let i = lowerBound(row.sortKey, row.id, order: order, strictly: false, from: start)
        let (k, s) = i >= count ? (entries.count - 1, count - entries[entries.count - 1].chunk.count) : chunkIndex(ofRow: i)
        let n = entries[k].chunk.count
        if n >= RowSequence.maxChunk {
            // A full chunk and the new row become two new halves (its rows moved when unique).
            let moving = isKnownUniquelyReferenced(&entries[k].chunk)
            let (left, right) = entries[k].chunk.split(inserting: row, at: i - s,
                                                       capacity: RowSequence.roomForInserts((n + 1) / 2), moving: moving)
            replaceChunks(k..<(k + 1), with: [left, right])
        } else {
            uniqueChunk(k, room: true)
            entries[k].chunk.insert(row, at: i - s)
            for j in k..<entries.count {
                entries[j].rowEnd += 1
                entries[j].tagEnd += row.tagLength
            }
        }
        return i
    }

    /// Replaces row `i` by a row with the same sort key and id.
    mutating func replace(at i: Int, with row: Row) {
        let (k, s) = chunkIndex(ofRow: i)
        uniqueChunk(k)
        let delta = entries[k].chunk.replace(at: i - s, with: row)
        if delta != 0 { for j in k..<entries.count { entries[j].tagEnd += delta } }
    }

    /// Removes row `i`; returns it.
    @discardableResult
    mutating func remove(at i: Int) -> Row {
        let (k, s) = chunkIndex(ofRow: i)
        uniqueChunk(k)
        let c = entries[k].chunk
        let row = c.remove(at: i - s)
        if c.count == 0 {
            replaceChunks(k..<(k + 1), with: [])
        } else if c.count < RowSequence.maxChunk / 8, k + 1 < entries.count,
                  c.count + entries[k + 1].chunk.count <= RowSequence.buildChunk {
            // Merge a small chunk with its right neighbour to keep the directory short.
            let next = entries[k + 1].chunk
            replaceChunks(k..<(k + 2), with: [RowChunk.joined(c, next)])
        } else {
            for j in k..<entries.count {
                entries[j].rowEnd -= 1
                entries[j].tagEnd -= row.tagLength
            }
        }
        return row
    }

    /// The first row index whose type is `type`.
    func firstIndex(ofType type: String) -> Int? {
        var start = 0
        for e in entries {
            let c = e.chunk
            if c.types.contains(type) {
                let j = c.withUnretainedRows { rows in rows.firstIndex { $0._withUnsafeGuaranteedRef { $0.type == type } } }
                if let j { return start + j }
            }
            start += c.count
        }
        return nil
    }
}
