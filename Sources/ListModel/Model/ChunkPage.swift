/// The prefix sums through one chunk of a directory: rows and tags of its chunks 0…k (this one
/// included). Plain data.
struct ChunkEnds {
    var rows: Int
    var tags: Int

    static let zero = ChunkEnds(rows: 0, tags: 0)

    @inline(__always)
    static func + (a: ChunkEnds, b: ChunkEnds) -> ChunkEnds { ChunkEnds(rows: a.rows + b.rows, tags: a.tags + b.tags) }
}

/// The index of the first of `count` ascending ends whose value (`end(i)`) is greater than `x`,
/// or `count - 1` when none is (binary search).
@inline(__always)
func firstEnd(above x: Int, count: Int, _ end: (Int) -> Int) -> Int {
    var lo = 0, hi = count - 1
    while lo < hi {
        let mid = (lo + hi) >> 1
        if end(mid) > x { hi = mid } else { lo = mid + 1 }
    }
    return lo
}

/// One page of a ``RowSequence``'s chunk directory: up to ``RowSequence/pageSize`` chunks in
/// order, each with the prefix sums of rows and tags through it, counted from the page's first
/// chunk. Stored inline, one allocation, like ``RowChunk``; shared between snapshots and changed
/// in place only while uniquely referenced (``RowSequence`` copies it first otherwise).
///
/// A page's length is fixed when it is made: chunks are replaced or changed in place, never
/// added or removed (``RowSequence`` makes new pages for that).
final class ChunkPage: ManagedBuffer<Int, ChunkPage.Slot> {
    /// A chunk, the sums through it, and the head of its last row (``RowChunk/lastHead``),
    /// kept here so that a search over chunks compares heads without reading the chunks.
    struct Slot {
        var chunk: RowChunk
        var ends: ChunkEnds
        var lastHead: UInt64
    }

    /// A slot as it is lent to readers: the same layout, the chunk read as `Unmanaged` (read as
    /// `RowChunk` it would be retained).
    struct Entry {
        let chunk: Unmanaged<RowChunk>
        let ends: ChunkEnds
        let lastHead: UInt64
    }

    /// A page of `chunks` (1…``RowSequence/pageSize`` of them), its sums computed from theirs.
    static func make<C: Collection<RowChunk>>(_ chunks: C) -> ChunkPage {
        let n = chunks.count
        precondition(n > 0, "a page holds at least one chunk")
        let page = unsafeDowncast(create(minimumCapacity: n) { _ in 0 }, to: ChunkPage.self)
        page.withUnsafeMutablePointers { count, slots in
            var sums = ChunkEnds.zero
            var i = 0
            for c in chunks where i < n {
                sums.rows += c.count
                sums.tags += c.tagTotal
                (slots + i).initialize(to: Slot(chunk: c, ends: sums, lastHead: c.lastHead))
                i += 1
            }
            precondition(i == n, "collection shorter than its count")
            count.pointee = n
        }
        return page
    }

    deinit {
        withUnsafeMutablePointers { count, slots in
            for i in 0..<count.pointee { _ = (slots + i).move() }
        }
    }

    /// Number of chunks.
    var count: Int { header }

    /// Rows and tags of the whole page.
    var total: ChunkEnds { withUnsafeMutablePointers { count, slots in slots[count.pointee - 1].ends } }

    /// A copy sharing every chunk (each retained once).
    func copy() -> ChunkPage {
        withUnsafeMutablePointers { count, slots in
            let n = count.pointee
            let page = unsafeDowncast(ChunkPage.create(minimumCapacity: n) { _ in n }, to: ChunkPage.self)
            page.withUnsafeMutablePointerToElements { target in
                for i in 0..<n { (target + i).initialize(to: slots[i]) }
            }
            return page
        }
    }

    /// Slot `c` (0 ≤ c < count), its chunk unretained. Reads the slot alone, not the page's
    /// header: a binary search over chunks reads one slot in each page it probes.
    @inline(__always)
    func entry(_ c: Int) -> Entry {
        assert(c >= 0 && c < header, "slot out of range")
        return withUnsafeMutablePointerToElements { $0.withMemoryRebound(to: Entry.self, capacity: c + 1) { $0[c] } }
    }

    // Changes: only while uniquely referenced (the caller checks).

    /// Calls `body` with chunk `c` made uniquely referenced, copied first if a snapshot shares
    /// it; with `room`, also made able to take one more row (see
    /// ``RowSequence/roomForInserts(_:)``; a unique full chunk moves its rows, none retained).
    /// The slot's head is read again afterwards.
    @inline(__always)
    func withUniqueChunk<R>(_ c: Int, room: Bool = false, _ body: (RowChunk) -> R) -> R {
        withUnsafeMutablePointerToElements { slots in
            let slot = slots + c
            let n = slot.pointee.chunk.count
            if !isKnownUniquelyReferenced(&slot.pointee.chunk) {
                slot.pointee.chunk = slot.pointee.chunk.copy(capacity: room ? RowSequence.roomForInserts(n) : n)
            } else if room && n == slot.pointee.chunk.rowCapacity {
                slot.pointee.chunk = slot.pointee.chunk.moved(capacity: RowSequence.roomForInserts(n))
            }
            let result = body(slot.pointee.chunk)
            slot.pointee.lastHead = slot.pointee.chunk.lastHead
            return result
        }
    }

    /// Whether chunk `c` is referenced by this page alone.
    func holdsUniquely(chunk c: Int) -> Bool {
        withUnsafeMutablePointerToElements { isKnownUniquelyReferenced(&$0[c].chunk) }
    }

    /// Adds `delta` to the sums of chunks `c…`, after rows went into or out of chunk `c`.
    @inline(__always)
    func shiftEnds(from c: Int, by delta: ChunkEnds) {
        withUnsafeMutablePointers { count, slots in
            for i in c..<count.pointee { slots[i].ends = slots[i].ends + delta }
        }
    }
}
