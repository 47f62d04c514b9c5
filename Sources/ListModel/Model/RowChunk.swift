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
///
/// **Borrowed rows.** A copy of a shared chunk (every write into a published list makes some)
/// does not retain the rows it copies: it keeps the chunk it was copied from as its ``Header/base``
/// and borrows those rows, which the base keeps alive (and, shared, never changes). Only rows the
/// copy takes in itself are retained, and only those are released when it is freed (``Header/owned``
/// tells which slots). A copy of a copy keeps the same base (one level, never a chain) and retains
/// the rows its source owned. Retaining a chunk's rows one by one was a cache miss and an atomic
/// operation per row, at each copy and again at each free: with rows retained, copying chunks was
/// 11% of a 1,000,000-record import's samples and freeing them 10% (`perf`, `make bench-service`).
/// With rows borrowed (1,000,000-record imports, alternating with the version before): copying
/// chunks 6% of the samples and freeing them 5%; the writer's CPU 15.7–16.4 s against 16.3–18.4 s,
/// the thread freeing old versions 3.0–3.3 s against 4.2–5.0 s; the import rate moved less than
/// the machine does from run to run (39,600–43,000 against 35,200–43,500 records/s).
/// The cost is memory: a base outlives the version it came from, with the rows its descendants no
/// longer hold; a copy that borrows fewer than half of its base's rows takes them all over and
/// drops the base (``copy(capacity:)``), which bounds that to half a chunk per chunk (resident
/// memory after such an import: 1,167 against 1,173 MB).
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
        /// Row types present (a superset after removals and replacements, of at most twice the
        /// rows: see ``RowChunk/note(_:header:rows:)``), to skip chunks in type look-ups.
        var types: [String]
        /// The chunk whose rows this one borrows (never one with a base of its own).
        var base: RowChunk?
        /// Slots whose rows this chunk retains; the others are borrowed from `base`.
        var owned: SlotBits
    }

    /// A chunk of `rows`, with room for `capacity` rows (at least `rows.count`). Touches every
    /// row (tag total, types).
    static func make<C: Collection<Row>>(_ rows: C, capacity: Int? = nil) -> RowChunk {
        let n = rows.count
        return filled(capacity: capacity ?? n, count: n, base: nil) { slots, owned in
            var i = 0
            for r in rows where i < n {
                (slots + i).initialize(to: r)
                i += 1
            }
            precondition(i == n, "collection shorter than its count")
            owned = .first(n)
        }
    }

    /// A chunk with room for `capacity` rows whose first `n` slots `initialize` fills (each slot
    /// exactly once, saying which it retained), borrowing the others from `base`; tag total and
    /// types are then read from the rows, unretained. Rows are placed one by one by the callers,
    /// not with `initialize(from:count:)` or `initialize(from:)`: those copy through the
    /// runtime's generic array copy, one value-witness call per row (`sectional-bench batch`
    /// under callgrind).
    private static func filled(capacity: Int, count n: Int, base: RowChunk?,
                               _ initialize: (UnsafeMutablePointer<Row>, inout SlotBits) -> Void) -> RowChunk {
        let chunk = empty(capacity: max(capacity, n, 1))
        chunk.withUnsafeMutablePointers { h, e in
            var owned = SlotBits.none
            initialize(e, &owned)
            var t = 0
            var stride = n == 0 ? -1 : e[0].tagLength
            var types: [String] = []
            e.withMemoryRebound(to: Unmanaged<Row>.self, capacity: n) { um in
                for u in UnsafeBufferPointer(start: um, count: n) {
                    u._withUnsafeGuaranteedRef { r in
                        t += r.tagLength
                        if r.tagLength != stride { stride = -1 }
                        if !types.contains(where: { codePointEqual($0, r.type) }) { types.append(r.type) }
                    }
                }
            }
            h.pointee.count = n
            h.pointee.tagTotal = t
            h.pointee.tagStride = stride
            h.pointee.types = types
            h.pointee.owned = owned
            let borrows = owned.count(in: n) < n
            assert(!borrows || base != nil, "borrowed rows without a base")
            h.pointee.base = borrows ? base : nil
        }
        return chunk
    }

    deinit {
        // Owned rows only, one by one: `deinitialize(count:)` releases through the runtime's
        // generic array destroy, a value-witness call per row. The base goes with the header.
        withUnsafeMutablePointers { h, e in
            let owned = h.pointee.owned
            for i in 0..<h.pointee.count where owned[i] { _ = (e + i).move() }
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
    /// Row types present (a superset after removals and replacements).
    var types: [String] { header.types }
    /// The head of the last row's position (``Row/keyHead``; 0 when empty).
    var lastHead: UInt64 {
        withUnsafeMutablePointers { h, e in h.pointee.count > 0 ? e[h.pointee.count - 1].keyHead : 0 }
    }
    /// Rows this chunk borrows from its base (see the type's doc).
    var borrowedCount: Int { header.count - header.owned.count(in: header.count) }

    /// A copy with room for `capacity` rows (at least ``count``): the caller sizes it for the
    /// change it is made for (see ``RowSequence``); sizing it to the original's capacity would
    /// let capacity ratchet up copy after copy (see ``ListSnapshot/recomputeStarts()``). Borrows
    /// the rows this chunk borrows or owns from this chunk's base, or from this chunk when it
    /// has none, retaining only the rows this chunk owns; tag total and types are copied, not
    /// recomputed.
    ///
    /// A copy takes every row over (retains them all and has no base) when it would borrow
    /// fewer than half of the base's rows, which bounds what a base keeps alive for nothing, or
    /// when the rows it must retain outnumber the square root of twice those it borrows. Each
    /// copy of a chunk that keeps taking rows in retains more (the rows taken in since its base),
    /// and one that takes every row over retains all but lets the copies after it retain none:
    /// for `b` borrowed rows and `i` new rows a copy, taking over every `√(2b/i)` copies costs
    /// the fewest retains a copy, about `√(2bi)`; for one new row a copy (a batch import's), this
    /// rule takes over just then: for a chunk of 96 rows some 14 retains a copy, against 48 for
    /// never taking over and 96 or more for retaining every row.
    func copy(capacity: Int) -> RowChunk {
        let h = header
        let base = h.base ?? self
        let chunk = RowChunk.empty(capacity: max(capacity, h.count, 1))
        withUnsafeMutablePointerToElements { source in
            chunk.withUnsafeMutablePointers { target, rows in
                Self.copyUnretained(from: source, to: rows, count: h.count)
                let ownedBySource = h.base == nil ? 0 : h.owned.count(in: h.count)
                let borrowed = h.count - ownedBySource
                var owned = SlotBits.none
                if h.base != nil && (ownedBySource * ownedBySource > 2 * borrowed || borrowed * 2 < base.count) {
                    // Taken over: every row retained, no base (see above).
                    for i in 0..<h.count { Self.retain(rows + i) }
                    owned = .first(h.count)
                } else if h.base != nil {
                    // Rows this chunk owns: the copy owns them too.
                    for i in 0..<h.count where h.owned[i] { Self.retain(rows + i); owned[i] = true }
                }
                target.pointee.count = h.count
                target.pointee.tagTotal = h.tagTotal
                target.pointee.tagStride = h.tagStride
                target.pointee.types = h.types
                target.pointee.owned = owned
                target.pointee.base = owned.count(in: h.count) < h.count ? base : nil
            }
        }
        return chunk
    }

    /// This chunk's rows moved into a new chunk with room for `capacity` rows, this one left
    /// empty: the rows change owner (and the base with them), none is retained or released
    /// (copying a full chunk to grow it retains every row, and freeing the old one releases them
    /// all again). Only for a chunk that is uniquely referenced (the caller checks).
    func moved(capacity: Int) -> RowChunk {
        let h = header
        let chunk = RowChunk.empty(capacity: max(capacity, h.count, 1))
        withUnsafeMutablePointerToElements { source in
            chunk.withUnsafeMutablePointers { target, rows in
                rows.moveInitialize(from: source, count: h.count)
                target.pointee.count = h.count
                target.pointee.tagTotal = h.tagTotal
                target.pointee.tagStride = h.tagStride
                target.pointee.types = h.types
                target.pointee.owned = h.owned
                target.pointee.base = h.base
            }
        }
        emptied()
        return chunk
    }

    /// An empty chunk with room for `capacity` rows.
    private static func empty(capacity: Int) -> RowChunk {
        unsafeDowncast(create(minimumCapacity: capacity) { _ in
            Header(count: 0, capacity: capacity, tagTotal: 0, tagStride: -1, types: [], base: nil, owned: .none)
        }, to: RowChunk.self)
    }

    /// Copies `n` row references without retaining them.
    @inline(__always)
    private static func copyUnretained(from source: UnsafeMutablePointer<Row>, to target: UnsafeMutablePointer<Row>, count n: Int) {
        UnsafeMutableRawPointer(target).copyMemory(from: source, byteCount: n * MemoryLayout<Row>.stride)
    }

    /// Retains the row in `slot` (a reference copied there unretained).
    @inline(__always)
    private static func retain(_ slot: UnsafeMutablePointer<Row>) {
        slot.withMemoryRebound(to: Unmanaged<Row>.self, capacity: 1) { _ = $0.pointee.retain() }
    }

    /// This chunk's rows with `row` inserted at `j` (0 ≤ j ≤ count), as two new chunks of half
    /// each, with room for `capacity` rows apiece. Rows are moved when `moving` (only for a
    /// chunk that is uniquely referenced; it is left empty, its base shared by both halves),
    /// else copied as ``copy(capacity:)`` copies them (the halves borrow from the same base).
    func split(inserting row: Row, at j: Int, capacity: Int, moving: Bool) -> (RowChunk, RowChunk) {
        let h = header
        let n = h.count
        precondition(j >= 0 && j <= n, "insert out of range")
        let half = (n + 1) / 2
        let base = moving ? h.base : (h.base ?? self)
        let (left, right) = withUnsafeMutablePointerToElements { source in
            /// Puts row `p` of the combined rows into `slot` (index `s` of its half).
            @inline(__always)
            func place(_ p: Int, _ slot: UnsafeMutablePointer<Row>, _ s: Int, _ owned: inout SlotBits) {
                if p == j { slot.initialize(to: row); owned[s] = true; return }
                let from = p < j ? p : p - 1
                Self.copyUnretained(from: source + from, to: slot, count: 1)
                // Moved: ownership moves too. Copied: the half owns what this chunk owned when
                // both borrow from this chunk's base; from this chunk itself it borrows all.
                if moving ? h.owned[from] : (h.base != nil && h.owned[from]) {
                    if !moving { Self.retain(slot) }
                    owned[s] = true
                }
            }
            let left = RowChunk.filled(capacity: capacity, count: half, base: base) { slots, owned in
                for p in 0..<half { place(p, slots + p, p, &owned) }
            }
            let right = RowChunk.filled(capacity: capacity, count: n + 1 - half, base: base) { slots, owned in
                for p in half...n { place(p, slots + (p - half), p - half, &owned) }
            }
            return (left, right)
        }
        if moving { emptied() }
        return (left, right)
    }

    /// Marks the rows as moved out (the slots hold nothing to release; the base went with them).
    private func emptied() {
        header.count = 0
        header.tagTotal = 0
        header.tagStride = -1
        header.owned = .none
        header.base = nil
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

    /// A new chunk holding `a`'s rows then `b`'s, each retained (it owns them all).
    static func joined(_ a: RowChunk, _ b: RowChunk) -> RowChunk {
        let (m, n) = (a.count, b.count)
        return filled(capacity: m + n, count: m + n, base: nil) { slots, owned in
            a.withUnsafeMutablePointerToElements { rows in for i in 0..<m { (slots + i).initialize(to: rows[i]) } }
            b.withUnsafeMutablePointerToElements { rows in for i in 0..<n { (slots + m + i).initialize(to: rows[i]) } }
            owned = .first(m + n)
        }
    }

    // Changes: only while uniquely referenced (the caller checks).

    /// Inserts `row` at `j` (0 ≤ j ≤ count), retained. Precondition: count < capacity.
    func insert(_ row: Row, at j: Int) {
        withUnsafeMutablePointers { h, e in
            precondition(j >= 0 && j <= h.pointee.count && h.pointee.count < h.pointee.capacity, "insert out of range or chunk full")
            (e + j + 1).moveInitialize(from: e + j, count: h.pointee.count - j)
            (e + j).initialize(to: row)
            h.pointee.owned.insert(true, at: j)
            h.pointee.tagStride = h.pointee.count == 0 || h.pointee.tagStride == row.tagLength ? row.tagLength : -1
            h.pointee.count += 1
            h.pointee.tagTotal += row.tagLength
            Self.note(row.type, header: h, rows: e)
        }
    }

    /// Adds `type` to the chunk's row types. Types of rows replaced or removed stay (a superset is
    /// enough to skip chunks); once they are more than twice the rows they are read again from
    /// the rows: a row written again and again with a new type each time grew them without end
    /// (each write scanning them, each version copying them).
    private static func note(_ type: String, header h: UnsafeMutablePointer<Header>, rows e: UnsafeMutablePointer<Row>) {
        guard !h.pointee.types.contains(where: { codePointEqual($0, type) }) else { return }
        h.pointee.types.append(type)
        guard h.pointee.types.count > 2 * h.pointee.count else { return }
        var types: [String] = []
        for k in 0..<h.pointee.count where !types.contains(where: { codePointEqual($0, e[k].type) }) { types.append(e[k].type) }
        h.pointee.types = types
    }

    /// Replaces row `j` (0 ≤ j < count); returns the change in tags.
    func replace(at j: Int, with row: Row) -> Int {
        withUnsafeMutablePointers { h, e in
            precondition(j >= 0 && j < h.pointee.count, "row index out of range")
            let delta = row.tagLength - e[j].tagLength
            if h.pointee.owned[j] {
                e[j] = row
            } else {
                // A borrowed row is not this chunk's to release.
                (e + j).initialize(to: row)
                h.pointee.owned[j] = true
            }
            h.pointee.tagTotal += delta
            if h.pointee.count == 1 { h.pointee.tagStride = row.tagLength } else if delta != 0 { h.pointee.tagStride = -1 }
            Self.note(row.type, header: h, rows: e)
            return delta
        }
    }

    /// Removes row `j` (0 ≤ j < count); returns it.
    func remove(at j: Int) -> Row {
        withUnsafeMutablePointers { h, e in
            precondition(j >= 0 && j < h.pointee.count, "row index out of range")
            // An owned row is handed over; a borrowed one is retained for the caller.
            let row = h.pointee.owned.remove(at: j) ? (e + j).move() : e[j]
            (e + j).moveInitialize(from: e + j + 1, count: h.pointee.count - j - 1)
            h.pointee.count -= 1
            h.pointee.tagTotal -= row.tagLength
            return row
        }
    }
}
