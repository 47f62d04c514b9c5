/// The first 64 bits of a position in a section's order, so that most comparisons of a search
/// are decided by one integer comparison, without reading the row's strings.
///
/// A row's *head* is computed once, when the row is built (``Row/keyHead``), from the first
/// component of its position: its first sort value, or its id when the spec has no `sortBy`.
/// Layout, ascending: the value's type rank in the top two bits (boolean 0, number 1, string 2,
/// missing 3), then 62 bits of the value: a boolean's 0 or 1, the order-preserving bits of a
/// number's nearest double, or a string's first UTF-8 bytes, big-endian and zero-padded.
/// ``RowOrder/head(_:)`` applies the field's direction.
///
/// **Contract**: heads are monotone in the order — `a ≤ b` implies `head(a) ≤ head(b)` — so
/// `head(a) < head(b)` proves `a < b`; equal heads decide nothing, and the full comparison
/// (``RowOrder/compare(_:_:_:_:)``) follows. Each part is monotone: nearest doubles round
/// monotonically, cutting bits off keeps order (not strict order), and UTF-8 byte order is
/// code-point order. It relies on the rows of one section having keys of one shape (all `.none`,
/// `.one` or `.many`; a spec builds every row's key from the same `sortBy`), since keys of
/// different shapes compare by id alone.
///
/// Measured with `make bench-service`'s row-id look-ups (100,000 people sorted by name; five
/// alternating `wrk` runs of two servers): finding a row's place was 18% of the server's
/// samples, each of some 20 probes reading a chunk, a row and the row's name, one cache miss
/// after another; with heads, a chunk probe reads its directory slot alone and a row probe the
/// row alone, and server CPU went from 30.9–34.2 to 29.0–32.9 µs a look-up (each run lower).
extension SortKey {
    /// The ascending head of the position (this key, then `id`): see above.
    func head(id: String) -> UInt64 {
        let value: SortValue
        switch self {
        case .none: return SortHead.string(id)
        case .one(let v): value = v
        case .many(let vs): value = vs[0]
        }
        switch value {
        case .missing: return SortHead.missing
        case .bool(let b): return b ? 1 : 0
        case .int(let i): return 1 << 62 | SortHead.orderBits(Double(i)) >> 2
        case .double(let d): return 1 << 62 | SortHead.orderBits(d == 0 ? 0 : d) >> 2
        case .decimal(let x): return 1 << 62 | SortHead.orderBits(x.nearest) >> 2
        case .string(let s): return SortHead.string(s)
        }
    }
}

extension RowOrder {
    /// A raw (ascending) head in this order's direction of field 0: reversed, type ranks
    /// included, when it is descending, but a missing value stays last.
    @inline(__always)
    func head(_ raw: UInt64) -> UInt64 {
        guard isDescending(0) else { return raw }
        return raw >= SortHead.missing ? .max : SortHead.missing - 1 - raw
    }
}

/// The pieces of a head (see ``SortKey/head(id:)``), shared with ``RowSorter``'s keys.
enum SortHead {
    /// The head of a missing value (ascending).
    static let missing: UInt64 = 3 << 62

    /// The head of a string: rank 2, then its first UTF-8 bytes.
    @inline(__always)
    static func string(_ s: String) -> UInt64 {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        _ = prefix(s, &words, 1)
        return 2 << 62 | words.0 >> 2
    }

    /// A double's bits, ordered as unsigned integers the way the doubles order (finite values).
    @inline(__always)
    static func orderBits(_ d: Double) -> UInt64 {
        let b = d.bitPattern
        return b & (1 << 63) != 0 ? ~b : b | (1 << 63)
    }

    /// The first `8 × count` UTF-8 bytes big-endian (zero padded) into `words`; returns the
    /// byte length. Reads the string in place.
    @inline(__always)
    static func prefix(_ s: String, _ words: inout (UInt64, UInt64, UInt64, UInt64), _ count: Int) -> Int {
        func fill(_ u: UnsafeBufferPointer<UInt8>) -> Int {
            withUnsafeMutableBytes(of: &words) { raw in
                let w = raw.baseAddress!.assumingMemoryBound(to: UInt64.self)
                let n = min(u.count, 8 * count)
                var k = 0
                while k < n {
                    w[k >> 3] |= UInt64(u[k]) << UInt64(56 - 8 * (k & 7))
                    k += 1
                }
            }
            return u.count
        }
        if let n = s.utf8.withContiguousStorageIfAvailable(fill) { return n }
        var s = s
        return s.withUTF8(fill)
    }
}
