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
        let chunk = unsafeDowncast(create(minimumCapacity: cap) { _ in Header(count: 0, capacity: cap, tagTotal: 0, types: []) },
                                   to: RowChunk.self)
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
    func copy(capacity: Int? = nil) -> RowChunk {
        let h = header
        let cap = max(capacity ?? h.count + 1, h.count, 1)
        let chunk = unsafeDowncast(RowChunk.create(minimumCapacity: cap) { _ in Header(count: 0, capacity: cap, tagTotal: 0, types: []) },
                                   to: RowChunk.self)
        withUnsafeMutablePointerToElements { src in
            chunk.withUnsafeMutablePointers { ch, e in
                e.initialize(from: src, count: h.count)
                ch.pointee = Header(count: h.count, capacity: cap, tagTotal: h.tagTotal, types: h.types)
            }
        }
        return chunk
    }

    /// This chunk's rows moved into a new chunk with room for `capacity` rows, this one left
    /// empty: the rows change owner, none is retained or released (copying a full chunk to grow
    /// it retained every row, and freeing the old one released them all again, which made row by
    /// row inserts cost twice the base's: `sectional-bench batch`). Only for a chunk that is
    /// uniquely referenced (the caller checks).
    func moved(capacity: Int) -> RowChunk {
        let h = header
        let cap = max(capacity, h.count, 1)
        let chunk = unsafeDowncast(RowChunk.create(minimumCapacity: cap) { _ in Header(count: 0, capacity: cap, tagTotal: 0, types: []) },
                                   to: RowChunk.self)
        withUnsafeMutablePointerToElements { src in
            chunk.withUnsafeMutablePointers { ch, e in
                e.moveInitialize(from: src, count: h.count)
                ch.pointee = Header(count: h.count, capacity: cap, tagTotal: h.tagTotal, types: h.types)
            }
        }
        header.count = 0
        header.tagTotal = 0
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
