/// One `sortBy` value of a row, ready to compare.
///
/// **Order** (ascending; a total order, consistent with ``JSONValue`` equality of the values):
/// booleans (false < true) < numbers (by exact value) < strings (by Unicode code points) <
/// missing. Missing covers an absent field, null, objects, arrays and non-finite doubles (which
/// JSON writes as null). `desc` reverses booleans, numbers and strings, type order included;
/// missing stays last in both directions. Equal values tie, and the row id breaks ties.
///
/// **Numbers** compare by the exact decimal their JSON text denotes — `9007199254740993` is
/// above `9007199254740992.0`, which equals `9007199254740992`; `-0` equals `0` — never through
/// a rounded `Double` (that made the order non-transitive, which corrupts sorted rows).
///
/// **Cost**: strings compare in place (no copy); two `Int64`s or two doubles are one machine
/// comparison; other numbers compare their nearest doubles first (rounding is monotone, so
/// different nearest doubles decide), and only values with equal nearest doubles (big integers
/// against doubles, kept decimals) compare exact decimal digits.
enum SortValue: Sendable, Equatable {
    case missing
    case bool(Bool)
    case int(Int64)
    /// A finite double; its value is its shortest text (what the JSON writer prints).
    case double(Double)
    /// A number kept as written (``JSONValue/number(_:)``).
    case decimal(ExactDecimal)
    case string(String)

    init(_ v: JSONValue?) {
        switch v {
        case .bool(let b)?: self = .bool(b)
        case .int(let i)?: self = .int(i)
        case .double(let d)?: self = d.isFinite ? .double(d) : .missing
        case .number(let n)?: self = .decimal(ExactDecimal(n))
        case .string(let s)?: self = .string(s)
        default: self = .missing
        }
    }

    private var rank: Int {
        switch self {
        case .bool: return 0
        case .int, .double, .decimal: return 1
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
            c = compareNumbers(a, b)
        }
        return descending ? -c : c
    }

    /// Exact three-way comparison of two numbers (see the type's doc).
    static func compareNumbers(_ a: SortValue, _ b: SortValue) -> Int {
        let x = a.nearest, y = b.nearest
        if x != y { return x < y ? -1 : 1 }
        switch a {
        case .int(let i):
            if case .int(let j) = b { return i == j ? 0 : (i < j ? -1 : 1) }
            if case .double = b, i.magnitude <= 1 << 53 { return 0 }
        case .double:
            if case .double = b { return 0 }
            if case .int(let j) = b, j.magnitude <= 1 << 53 { return 0 }
        default:
            break
        }
        return DecimalText.compare(a.exact, b.exact)
    }

    /// The nearest double of a number (0 for a non-number; `-0` as `0`).
    var nearest: Double {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d == 0 ? 0 : d
        case .decimal(let x): return x.nearest
        default: return 0
        }
    }

    /// The exact decimal of a number (zero for a non-number).
    private var exact: DecimalText {
        switch self {
        case .int(let i): return DecimalText(.int(i))!
        case .double(let d): return DecimalText(.double(d)) ?? DecimalText(negative: false, digits: [], pointPosition: 0)
        case .decimal(let x): return x.exact
        default: return DecimalText(negative: false, digits: [], pointPosition: 0)
        }
    }
}

/// A kept number's text with its nearest double and exact decimal, computed once per row.
final class ExactDecimal: Sendable, Equatable {
    let text: String
    let nearest: Double
    let exact: DecimalText

    init(_ n: JSONNumber) {
        text = n.text
        let d = n.doubleValue
        nearest = d == 0 ? 0 : d
        exact = n.decimal
    }

    static func == (a: ExactDecimal, b: ExactDecimal) -> Bool { a.text == b.text }
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

    /// How many values (``values``' count, without making the array).
    var count: Int {
        switch self {
        case .none: 0
        case .one: 1
        case .many(let vs): vs.count
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
    /// How many sort fields (a literal spec's one: its rows' positions).
    let fieldCount: Int

    init(descending: [Bool]) {
        fieldCount = descending.count
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
