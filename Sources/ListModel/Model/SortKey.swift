/// One `sortBy` value of a row.
///
/// Order (SPEC §2.1, made total for mixed types): booleans (false < true) < numbers (numeric)
/// < strings (code points); objects and arrays count as missing. Missing and null always sort
/// last, whatever the direction; `desc` reverses everything else, including the type order.
enum SortValue: Sendable, Equatable {
    case missing
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)

    init(_ v: JSONValue?) {
        switch v {
        case .bool(let b)?: self = .bool(b)
        case .int(let i)?: self = .int(i)
        case .double(let d)?: self = .double(d)
        case .string(let s)?: self = .string(s)
        default: self = .missing
        }
    }

    private var rank: Int {
        switch self {
        case .bool: return 0
        case .int, .double: return 1
        case .string: return 2
        case .missing: return 3
        }
    }

    /// Three-way comparison in ascending order; `missing` compares equal to `missing`.
    ///
    /// Matches one value at a time (no `(a, b)` tuple, which would copy both payloads — a
    /// retain/release on row strings that other threads read too).
    @inline(__always)
    static func compare(_ a: SortValue, _ b: SortValue, descending: Bool) -> Int {
        switch a {
        case .string(let x):
            if case .string(let y) = b {
                let c = compareCodePoints(x, y)
                return descending ? -c : c
            }
        case .int(let x):
            if case .int(let y) = b {
                let c = x == y ? 0 : (x < y ? -1 : 1)
                return descending ? -c : c
            }
        default:
            break
        }
        return compareMixed(a, b, descending: descending)
    }

    private static func compareMixed(_ a: SortValue, _ b: SortValue, descending: Bool) -> Int {
        let ra = a.rank, rb = b.rank
        if ra == 3 || rb == 3 { return ra == rb ? 0 : (ra == 3 ? 1 : -1) }   // missing: last either way
        var c: Int
        if ra != rb {
            c = ra < rb ? -1 : 1
        } else if case .bool(let x) = a, case .bool(let y) = b {
            c = x == y ? 0 : (!x ? -1 : 1)
        } else if case .string(let x) = a, case .string(let y) = b {
            c = compareCodePoints(x, y)
        } else {
            let x = a.number, y = b.number
            c = x == y ? 0 : (x < y ? -1 : 1)
        }
        return descending ? -c : c
    }

    private var number: Double {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return 0
        }
    }
}

/// The sort position of a row inside its section (its `sortBy` values; literal rows use their
/// position in the configuration). Ties are broken by row id.
enum SortKey: Sendable, Equatable {
    case none
    case one(SortValue)
    case many([SortValue])

    var values: [SortValue] {
        switch self {
        case .none: return []
        case .one(let v): return [v]
        case .many(let vs): return vs
        }
    }

    init(values: [SortValue]) {
        switch values.count {
        case 0: self = .none
        case 1: self = .one(values[0])
        default: self = .many(values)
        }
    }
}

/// Orders rows within one spec: by sort key with per-field directions, then id (code points).
///
/// Plain bits rather than a `[Bool]`: page requests take a spec's order from the shared
/// definition, and copying an array would retain storage every server thread reads.
struct RowOrder: Sendable {
    /// Bit k set = field k descending (fields 0…63; later ones in `overflow`).
    private let bits: UInt64
    /// Directions of fields 64 and later (almost always empty).
    private let overflow: [Bool]

    init(descending: [Bool]) {
        var b: UInt64 = 0
        for (k, d) in descending.prefix(64).enumerated() where d { b |= 1 << UInt64(k) }
        bits = b
        overflow = descending.count > 64 ? Array(descending[64...]) : []
    }

    /// `true` when sort field `k` is descending.
    @inline(__always)
    func isDescending(_ k: Int) -> Bool { k < 64 ? bits & (1 << UInt64(k)) != 0 : overflow[k - 64] }

    @inline(__always)
    func compare(_ ak: SortKey, _ aid: String, _ bk: SortKey, _ bid: String) -> Int {
        switch ak {
        case .one(let x):
            if case .one(let y) = bk {
                let c = SortValue.compare(x, y, descending: bits & 1 != 0)
                if c != 0 { return c }
            }
        case .many(let xs):
            if case .many(let ys) = bk {
                for k in 0..<min(xs.count, ys.count) {
                    let c = SortValue.compare(xs[k], ys[k], descending: isDescending(k))
                    if c != 0 { return c }
                }
            }
        case .none:
            break
        }
        return compareCodePoints(aid, bid)
    }

    @inline(__always)
    func less(_ a: Row, _ b: Row) -> Bool { compare(a.sortKey, a.id, b.sortKey, b.id) < 0 }
}
