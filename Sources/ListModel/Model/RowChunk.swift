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
        /// Row types present (a superset after removals), to skip chunks in type look-ups.
        var types: [String]
    }

    /// A chunk of `rows`, with room for `capacity` rows (at least `rows.count`). Touches every
    /// row (tag total, types).
    static func make<C: Collection<Row>>(_ rows: C, capacity: Int? = nil) -> RowChunk {
        let n = rows.count
        let cap = max(capacity ?? n, n, 1)
        let chunk = empty(capacity: cap)
        chunk.withUnsafeMutablePointers { h, e in
            let (_, copied) = UnsafeMutableBufferPointer(start: e, count: n).initialize(from: rows)
            precondition(copied == n, "collection shorter than its count")
            // Tag total and types read with the rows unretained (the chunk holds them now).
            var t = 0
            var types: [String] = []
            e.withMemoryRebound(to: Unmanaged<Row>.self, capacity: n) { um in
                for u in UnsafeBufferPointer(start: um, count: n) {
                    u._withUnsafeGuaranteedRef { r in
                        t += r.tagLength
                        if !types.contains(r.type) { types.append(r.type) }
                    }
                }
            }
            h.pointee = Header(count: n, capacity: cap, tagTotal: t, types: types)
        }
        return chunk
    }

    deinit {
        _ = withUnsafeMutablePointers { h, e in e.deinitialize(count: h.pointee.count) }
    }

    /// Number of rows.
    var count: Int { header.count }
    /// Slots allocated (``count`` ≤ rowCapacity).
    var rowCapacity: Int { header.capacity }
    /// Tags of the rows.
    var tagTotal: Int { header.tagTotal }
    /// Row types present (a superset after removals).
    var types: [String] { header.types }

    /// A copy with room for the rows plus one insert: a copy is made to be changed once (see
    /// ``RowSequence``), and sizing it to the original's capacity would let capacity ratchet up
    /// copy after copy (see ``ListSnapshot/recomputeStarts()``). Retains every row; tag total and
    /// types are copied, not recomputed.
    func copy(capacity: Int? = nil) -> RowChunk { relocated(capacity: capacity ?? count + 1, moving: false) }

    /// This chunk's rows moved into a new chunk with room for `capacity` rows, this one left
    /// empty: the rows change owner, none is retained or released (copying a full chunk to grow
    /// it retains every row, and freeing the old one releases them all again). Only for a chunk
    /// that is uniquely referenced (the caller checks).
    func moved(capacity: Int) -> RowChunk { relocated(capacity: capacity, moving: true) }

    /// An empty chunk with room for `capacity` rows.
    private static func empty(capacity: Int) -> RowChunk {
        unsafeDowncast(create(minimumCapacity: capacity) { _ in Header(count: 0, capacity: capacity, tagTotal: 0, types: []) },
                       to: RowChunk.self)
    }

    /// A new chunk with room for `capacity` rows (at least ``count``) holding this one's rows,
    /// copied (each retained) or moved (this one left empty). Row by row rather than
    /// `initialize(from:count:)`, which copies through the runtime's generic array copy, a
    /// value-witness call per row.
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
                target.pointee.types = h.types
            }
        }
        if moving {
            header.count = 0
            header.tagTotal = 0
        }
        return chunk
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

    /// Rows `range` (within 0…count), retained, in a new array.
    func rows(_ range: Range<Int>) -> ContiguousArray<Row> {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "row range out of bounds")
        return withUnsafeMutablePointerToElements { ContiguousArray(UnsafeBufferPointer(start: $0 + range.lowerBound, count: range.count)) }
    }

    // Changes: only while uniquely referenced (the caller checks).

    /// Inserts `row` at `j` (0 ≤ j ≤ count). Precondition: count < capacity.
    func insert(_ row: Row, at j: Int) {
        withUnsafeMutablePointers { h, e in
            precondition(j >= 0 && j <= h.pointee.count && h.pointee.count < h.pointee.capacity, "insert out of range or chunk full")
            (e + j + 1).moveInitialize(from: e + j, count: h.pointee.count - j)
            (e + j).initialize(to: row)
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
