/// Sorts rows for a build without touching `Row` objects in the common case.
///
/// Each row gets a fixed-size key (type rank, 32 bytes of a string or the order-preserving bits
/// of a number, a length word, and 16 bytes of the id). Comparing keys is plain integer work;
/// only keys that tie without being exact fall back to ``RowOrder`` (on unretained rows), so
/// (numbers key by their nearest double; big integers and kept decimals are never exact)
/// the result is exactly the order ``RowOrder`` defines. The rows are then permuted in place by
/// moving references, without a retain or release per row.
enum RowSorter {
    struct Entry {
        var k0: UInt64, k1: UInt64, k2: UInt64, k3: UInt64, k4: UInt64, k5: UInt64
        var i1: UInt64, i2: UInt64
        var idLength: Int32
        var index: Int32
        var exact: Bool
    }

    static let stringPrefix = 32

    static func sort(_ rows: inout ContiguousArray<Row>, order: RowOrder) {
        guard rows.count > 1 else { return }
        var entries: [Entry] = []
        entries.reserveCapacity(rows.count)
        rows.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: Unmanaged<Row>.self) { um in
                for i in 0..<um.count { entries.append(um[i]._withUnsafeGuaranteedRef { entry($0, Int32(i), order) }) }
                entries.sort { a, b in
                    if a.k0 != b.k0 { return a.k0 < b.k0 }
                    if a.k1 != b.k1 { return a.k1 < b.k1 }
                    if a.k2 != b.k2 { return a.k2 < b.k2 }
                    if a.k3 != b.k3 { return a.k3 < b.k3 }
                    if a.k4 != b.k4 { return a.k4 < b.k4 }
                    if a.k5 != b.k5 { return a.k5 < b.k5 }
                    if a.exact && b.exact {
                        if a.i1 != b.i1 { return a.i1 < b.i1 }
                        if a.i2 != b.i2 { return a.i2 < b.i2 }
                        if a.idLength <= 16 && b.idLength <= 16 { return a.idLength < b.idLength }
                    }
                    return um[Int(a.index)]._withUnsafeGuaranteedRef { ra in
                        um[Int(b.index)]._withUnsafeGuaranteedRef { rb in order.less(ra, rb) }
                    }
                }
            }
        }
        // Apply the permutation (row k ← old row entries[k].index) cycle by cycle, moving
        // references; `index` = -1 marks placed rows.
        rows.withUnsafeMutableBufferPointer { buf in
            entries.withUnsafeMutableBufferPointer { es in
                let base = buf.baseAddress!
                for start in 0..<es.count where es[start].index >= 0 {
                    if Int(es[start].index) == start { es[start].index = -1; continue }
                    let held = (base + start).move()
                    var k = start
                    while true {
                        let from = Int(es[k].index)
                        es[k].index = -1
                        if from == start {
                            (base + k).initialize(to: held)
                            break
                        }
                        (base + k).moveInitialize(from: base + from, count: 1)
                        k = from
                    }
                }
            }
        }
    }

    private static func entry(_ r: Row, _ index: Int32, _ order: RowOrder) -> Entry {
        var e = Entry(k0: 0, k1: 0, k2: 0, k3: 0, k4: 0, k5: 0, i1: 0, i2: 0, idLength: 0, index: index, exact: true)
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        let il = SortHead.prefix(r.id, &words, 2)
        e.i1 = words.0; e.i2 = words.1; e.idLength = Int32(min(il, 17))
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
            rank = 1; e.k1 = SortHead.orderBits(Double(i))
            if i.magnitude > 1 << 53 { e.exact = false }
        case .double(let d):
            rank = 1; e.k1 = SortHead.orderBits(d == 0 ? 0 : d)
        case .decimal(let x):
            rank = 1; e.k1 = SortHead.orderBits(x.nearest)
            e.exact = false
        case .string(let s):
            rank = 2
            words = (0, 0, 0, 0)
            let n = SortHead.prefix(s, &words, 4)
            e.k1 = words.0; e.k2 = words.1; e.k3 = words.2; e.k4 = words.3
            e.k5 = UInt64(min(n, stringPrefix + 1))
            if n > stringPrefix { e.exact = false }
        }
        if desc {
            rank = 2 - rank
            e.k1 = ~e.k1; e.k2 = ~e.k2; e.k3 = ~e.k3; e.k4 = ~e.k4; e.k5 = ~e.k5
        }
        e.k0 = rank
        return e
    }
}
