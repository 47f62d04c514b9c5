/// Sorts rows for a build without touching `Row` objects in the common case.
///
/// Each row gets a fixed-size key (type rank, 16 bytes of a string or the order-preserving bits
/// of a number, a length/exactness word, and 16 bytes of the id). Comparing keys is plain integer
/// work; only keys that tie without being exact fall back to ``RowOrder``, so the result is
/// exactly the order ``RowOrder`` defines.
enum RowSorter {
    struct Entry {
        var k0: UInt64, k1: UInt64, k2: UInt64, k3: UInt64
        var i1: UInt64, i2: UInt64
        var idLength: Int32
        var exact: Bool
        var index: Int32
    }

    static func sort(_ rows: inout ContiguousArray<Row>, order: RowOrder) {
        guard rows.count > 1 else { return }
        var entries: [Entry] = []
        entries.reserveCapacity(rows.count)
        for (i, r) in rows.enumerated() { entries.append(entry(r, Int32(i), order)) }
        rows.withUnsafeBufferPointer { buf in
            entries.sort { a, b in
                if a.k0 != b.k0 { return a.k0 < b.k0 }
                if a.k1 != b.k1 { return a.k1 < b.k1 }
                if a.k2 != b.k2 { return a.k2 < b.k2 }
                if a.k3 != b.k3 { return a.k3 < b.k3 }
                if a.exact && b.exact {
                    if a.i1 != b.i1 { return a.i1 < b.i1 }
                    if a.i2 != b.i2 { return a.i2 < b.i2 }
                    if a.idLength <= 16 && b.idLength <= 16 { return a.idLength < b.idLength }
                }
                return order.less(buf[Int(a.index)], buf[Int(b.index)])
            }
        }
        let old = rows
        rows.removeAll(keepingCapacity: true)
        for e in entries { rows.append(old[Int(e.index)]) }
    }

    private static func entry(_ r: Row, _ index: Int32, _ order: RowOrder) -> Entry {
        var e = Entry(k0: 0, k1: 0, k2: 0, k3: 0, i1: 0, i2: 0, idLength: 0, exact: true, index: index)
        let (i1, i2, il) = prefix(r.id)
        e.i1 = i1; e.i2 = i2; e.idLength = Int32(min(il, 17))
        let value: SortValue
        switch r.sortKey {
        case .none: return e
        case .one(let v): value = v
        case .many(let vs): value = vs[0]; e.exact = false
        }
        let desc = order.isDescending(0)
        var rank: UInt64
        switch value {
        case .missing:
            e.k0 = 3
            return e
        case .bool(let b):
            rank = 0; e.k1 = b ? 1 : 0
        case .int(let i):
            rank = 1; e.k1 = orderBits(Double(i))
            if i.magnitude > 1 << 53 { e.exact = false }
        case .double(let d):
            rank = 1; e.k1 = orderBits(d == 0 ? 0 : d)
        case .string(let s):
            rank = 2
            let (a, b, n) = prefix(s)
            e.k1 = a; e.k2 = b; e.k3 = UInt64(min(n, 17))
            if n > 16 { e.exact = false }
        }
        if desc {
            rank = 2 - rank
            e.k1 = ~e.k1; e.k2 = ~e.k2; e.k3 = ~e.k3
        }
        e.k0 = rank
        return e
    }

    @inline(__always)
    private static func orderBits(_ d: Double) -> UInt64 {
        let b = d.bitPattern
        return b & (1 << 63) != 0 ? ~b : b | (1 << 63)
    }

    /// First 16 UTF-8 bytes big-endian (zero padded) and the byte length.
    @inline(__always)
    private static func prefix(_ s: String) -> (UInt64, UInt64, Int) {
        var s = s
        return s.withUTF8 { u in
            var a: UInt64 = 0, b: UInt64 = 0
            for k in 0..<min(8, u.count) { a |= UInt64(u[k]) << UInt64(56 - 8 * k) }
            if u.count > 8 { for k in 8..<min(16, u.count) { b |= UInt64(u[k]) << UInt64(56 - 8 * (k - 8)) } }
            return (a, b, u.count)
        }
    }
}
