/// A run of consecutive rows of one section, stored inline after a small header: one allocation
/// holding the rows themselves, not an array of them. Shared between snapshots; changed in place
/// only while uniquely referenced (``RowSequence`` copies it first otherwise), hence never after
/// a snapshot holding it is published — which is what makes ``RowSequence``'s
/// `@unchecked Sendable` sound (a managed buffer cannot declare itself `Sendable`).
///
/// Why not a `var rows: ContiguousArray<Row>`: to lend such an array's elements to a closure the
/// compiler retains the array for the loan, as it cannot prove that nothing the closure calls
/// replaces it; a page cut lends a chunk at each step of a binary search. The rows of a managed
/// buffer belong to the chunk itself, which the lender already borrows: lending them
/// (``withUnretainedRows(_:)``) touches no reference count.
final class RowChunk: ManagedBuffer<RowChunk.Header, Row> {
    struct Header {
        /// Initialized rows, the first `count` of the `capacity` slots.
        var count: Int
        /// Slots allocated (the buffer may have a few more; they are not used).
        var capacity: Int
        /// Tags of the rows.
        var tagTotal: Int
        /// The tag length of every row, or -1 when they differ (or may: removals do not look
        /// again). Lets a page find its first tag without reading each row before it in the
        /// chunk: a row read is a cache miss, and a page by token starts mid-chunk (half a
        /// chunk's rows read before rendering any, `make bench-service`'s random pages).
        var tagStride: Int
        /// Row types present (a superset after removals), to skip chunks in type look-ups.
        var types: [String]
    }

    /// A chunk of `rows`, with room for `capacity` rows (at least `rows.count`). Touches every
    /// row (tag total, types).
    static func make<C: Collection<Row>>(_ rows: C, capacity: Int? = nil) -> RowChunk {
        let n = rows.count
        return filled(capacity: capacity ?? n, count: n) { slots in
            var i = 0
            for r in rows where i < n {
                (slots + i).initialize(to: r)
                i += 1
            }
            precondition(i == n, "collection shorter than its count")
        }
    }

    /// A chunk with room for `capacity` rows whose first `n` slots `initialize` fills (each
    /// slot exactly once); tag total and types are then read from the rows, unretained (the
    /// chunk holds them). Rows are placed one by one by the callers, not with
    /// `initialize(from:count:)` or `initialize(from:)`: those copy through the runtime's generic
    /// array copy, one value-witness call per row (`sectional-bench batch` under callgrind).
    private static func filled(capacity: Int, count n: Int, _ initialize: (UnsafeMutablePointer<Row>) -> Void) -> RowChunk {
        let chunk = empty(capacity: max(capacity, n, 1))
        chunk.withUnsafeMutablePointers { h, e in
            initialize(e)
            var t = 0
            var stride = n == 0 ? -1 : e[0].tagLength
            var types: [String] = []
            e.withMemoryRebound(to: Unmanaged<Row>.self, capacity: n) { um in
                for u in UnsafeBufferPointer(start: um, count: n) {
                    u._withUnsafeGuaranteedRef { r in
                        t += r.tagLength
                        if r.tagLength != stride { stride = -1 }
                        if !types.contains(r.type) { types.append(r.type) }
                    }
                }
            }
            h.pointee.count = n
            h.pointee.tagTotal = t
            h.pointee.tagStride = stride
            h.pointee.types = types
        }
        return chunk
    }

    deinit {
        // Row by row: `deinitialize(count:)` releases through the runtime's generic array
        // destroy, a value-witness call per row.
        withUnsafeMutablePointers { h, e in
            for i in 0..<h.pointee.count { _ = (e + i).move() }
        }
    }

    /// Number of rows.
    var count: Int { header.count }
    /// Slots allocated (``count`` ≤ rowCapacity).
    var rowCapacity: Int { header.capacity }
    /// Tags of the rows.
    var tagTotal: Int { header.tagTotal }
    /// The tag length of every row, or -1 (see ``Header/tagStride``).
    var tagStride: Int { header.tagStride }
    /// Row types present (a superset after removals).
    var types: [String] { header.types }
    /// The head of the last row's position (``Row/keyHead``; 0 when empty).
    var lastHead: UInt64 {
        withUnsafeMutablePointers { h, e in h.pointee.count > 0 ? e[h.pointee.count - 1].keyHead : 0 }
    }

    /// A copy with room for `capacity` rows (at least ``count``): the caller sizes it for the
    /// change it is made for (see ``RowSequence``); sizing it to the original's capacity would
    /// let capacity ratchet up copy after copy (see ``ListSnapshot/recomputeStarts()``). Retains
    /// every row; tag total and types are copied, not recomputed.
    func copy(capacity: Int) -> RowChunk { relocated(capacity: capacity, moving: false) }

    /// This chunk's rows moved into a new chunk with room for `capacity` rows, this one left
    /// empty: the rows change owner, none is retained or released (copying a full chunk to grow
    /// it retains every row, and freeing the old one releases them all again). Only for a chunk
    /// that is uniquely referenced (the caller checks).
    func moved(capacity: Int) -> RowChunk { relocated(capacity: capacity, moving: true) }

    /// An empty chunk with room for `capacity` rows.
    private static func empty(capacity: Int) -> RowChunk {
        unsafeDowncast(create(minimumCapacity: capacity) { _ in Header(count: 0, capacity: capacity, tagTotal: 0, tagStride: -1, types: []) },
                       to: RowChunk.self)
    }

    /// A new chunk with room for `capacity` rows (at least ``count``) holding this one's rows,
    /// copied (each retained) or moved (this one left empty).
    private func relocated(capacity: Int, moving: Bool) -> RowChunk {
        let h = header
        let chunk = RowChunk.empty(capacity: max(capacity, h.count, 1))
        withUnsafeMutablePointerToElements { source in
            chunk.withUnsafeMutablePointers { target, rows in
                if moving {
                    rows.moveInitialize(from: source, count: h.count)
                } else {
                    for i in 0..<h.count { (rows + i).initialize(to: source[i]) }
                }
                target.pointee.count = h.count
                target.pointee.tagTotal = h.tagTotal
                target.pointee.tagStride = h.tagStride
                target.pointee.types = h.types
            }
        }
        if moving { emptied() }
        return chunk
    }

    /// This chunk's rows with `row` inserted at `j` (0 ≤ j ≤ count), as two new chunks of half
    /// each, with room for `capacity` rows apiece. Rows are moved when `moving` (only for a
    /// chunk that is uniquely referenced; it is left empty), else copied (each retained once).
    func split(inserting row: Row, at j: Int, capacity: Int, moving: Bool) -> (RowChunk, RowChunk) {
        let n = count
        precondition(j >= 0 && j <= n, "insert out of range")
        let half = (n + 1) / 2
        let (left, right) = withUnsafeMutablePointerToElements { source in
            /// Puts row `p` of the combined rows into `slot`.
            @inline(__always)
            func place(_ p: Int, _ slot: UnsafeMutablePointer<Row>) {
                if p == j { slot.initialize(to: row); return }
                let from = source + (p < j ? p : p - 1)
                slot.initialize(to: moving ? from.move() : from.pointee)
            }
            let left = RowChunk.filled(capacity: capacity, count: half) { slots in
                for p in 0..<half { place(p, slots + p) }
            }
            let right = RowChunk.filled(capacity: capacity, count: n + 1 - half) { slots in
                for p in half...n { place(p, slots + (p - half)) }
            }
            return (left, right)
        }
        if moving { emptied() }
        return (left, right)
    }

    /// Marks the rows as moved out (the slots hold nothing to release).
    private func emptied() {
        header.count = 0
        header.tagTotal = 0
        header.tagStride = -1
    }

    /// Lends the rows as unretained references to `body` (see ``RowsView``); the buffer is valid
    /// only inside `body`.
    @inline(__always)
    func withUnretainedRows<R>(_ body: (UnsafeBufferPointer<Unmanaged<Row>>) -> R) -> R {
        withUnsafeMutablePointers { h, e in
            let n = h.pointee.count
            return e.withMemoryRebound(to: Unmanaged<Row>.self, capacity: n) { body(UnsafeBufferPointer(start: $0, count: n)) }
        }
    }

    /// A new chunk holding `a`'s rows then `b`'s, each retained.
    static func joined(_ a: RowChunk, _ b: RowChunk) -> RowChunk {
        let (m, n) = (a.count, b.count)
        return filled(capacity: m + n, count: m + n) { slots in
            a.withUnsafeMutablePointerToElements { rows in for i in 0..<m { (slots + i).initialize(to: rows[i]) } }
            b.withUnsafeMutablePointerToElements { rows in for i in 0..<n { (slots + m + i).initialize(to: rows[i]) } }
        }
    }

    // Changes: only while uniquely referenced (the caller checks).

    /// Inserts `row` at `j` (0 ≤ j ≤ count). Precondition: count < capacity.
    func insert(_ row: Row, at j: Int) {
        withUnsafeMutablePointers { h, e in
            precondition(j >= 0 && j <= h.pointee.count && h.pointee.count < h.pointee.capacity, "insert out of range or chunk full")
            (e + j + 1).moveInitialize(from: e + j, count: h.pointee.count - j)
            (e + j).initialize(to: row)
            h.pointee.tagStride = h.pointee.count == 0 || h.pointee.tagStride == row.tagLength ? row.tagLength : -1
            h.pointee.count += 1
            h.pointee.tagTotal += row.tagLength
            if !h.pointee.types.contains(row.type) { h.pointee.types.append(row.type) }
        }
    }

    /// Replaces row `j` (0 ≤ j < count); returns the change in tags.
    func replace(at j: Int, with row: Row) -> Int {
        withUnsafeMutablePointers { h, e in
            precondition(j >= 0 && j < h.pointee.count, "row index out of range")
            let delta = row.tagLength - e[j].tagLength
            e[j] = row
            h.pointee.tagTotal += delta
            if h.pointee.count == 1 { h.pointee.tagStride = row.tagLength } else if delta != 0 { h.pointee.tagStride = -1 }
            if !h.pointee.types.contains(row.type) { h.pointee.types.append(row.type) }
            return delta
        }
    }

    /// Removes row `j` (0 ≤ j < count); returns it.
    func remove(at j: Int) -> Row {
        withUnsafeMutablePointers { h, e in
            precondition(j >= 0 && j < h.pointee.count, "row index out of range")
            let row = (e + j).move()
            (e + j).moveInitialize(from: e + j + 1, count: h.pointee.count - j - 1)
            h.pointee.count -= 1
            h.pointee.tagTotal -= row.tagLength
            return row
        }
    }
}
