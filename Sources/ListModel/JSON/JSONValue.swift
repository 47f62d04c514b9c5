import JSONOutput

/// A JSON value.
///
/// Numbers are kept exactly as written: an integer literal that fits in `Int64` parses as
/// ``int(_:)``; another number parses as ``double(_:)`` when the writer prints that `Double`
/// back as the same text (`0.5`, `1e-7`), and otherwise as ``number(_:)`` holding its text
/// (`9223372036854775808`, `1.50`, `1e2`, `-0`). A number's value is the exact decimal its
/// JSON text denotes (for a `.double`, the shortest text that reads back as it).
///
/// Equality and hashing are by value across the three number cases (`.int(1) == .double(1.0)`,
/// `.number("1.50") == .double(1.5)`, `-0 == 0`) and compare exactly, never through a rounded
/// `Double`; objects compare without regard to member order.
public enum JSONValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits in `Int64`.
    case int(Int64)
    /// A number whose shortest `Double` text is its JSON text.
    case double(Double)
    /// A number kept as its text (see above).
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object (members in order).
    case object(JSONObject)
}

extension JSONValue {
    /// The string payload, if this is a string.
    @inlinable public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The numeric payload as a `Double` (the nearest one), if this is a number.
    @inlinable public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .number(let n): return n.doubleValue
        default: return nil
        }
    }

    /// The payload as an exact integer: `.int`, or a `.double` with an integral value in range.
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d):
            guard d >= -9.223372036854775808e18, d < 9.223372036854775808e18 else { return nil }
            let i = Int64(d)
            return Double(i) == d ? i : nil
        case .number(let n):
            let x = n.decimal
            if x.isZero { return 0 }
            guard x.pointPosition > 0, x.pointPosition <= 19, x.digits.count <= x.pointPosition else { return nil }
            var m: UInt64 = 0
            for k in 0..<x.pointPosition {
                let (p, o1) = m.multipliedReportingOverflow(by: 10)
                let (q, o2) = p.addingReportingOverflow(UInt64(k < x.digits.count ? x.digits[k] : 0))
                if o1 || o2 { return nil }
                m = q
            }
            if x.negative { return m <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- m) : nil }
            return m <= UInt64(Int64.max) ? Int64(m) : nil
        default: return nil
        }
    }

    /// The boolean payload, if this is a boolean.
    @inlinable public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The object payload, if this is an object.
    @inlinable public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The array payload, if this is an array.
    @inlinable public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// `true` for `.null`.
    @inlinable public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// `true` for `.int`, `.double` and `.number`.
    @inlinable public var isNumber: Bool {
        switch self {
        case .int, .double, .number: return true
        default: return false
        }
    }

    /// The member `key` of an object; `nil` for a missing member or a non-object.
    @inlinable public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// A short name of the value's JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double, .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension JSONValue: Equatable {
    /// Equal values: numbers compare by value whatever their form, objects ignore member order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case (.int, .double), (.double, .int), (.number, _), (_, .number):
            return JSONValue.compareNumbers(lhs, rhs) == 0
        case let (.string(a), .string(b)): return a.utf8.elementsEqual(b.utf8)
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        default: return false
        }
    }

    /// Three-way comparison of two numbers by exact value (-1, 0, 1); `nil` when either is not
    /// a number or is NaN.
    ///
    /// Cost: one `Double` comparison in the common case. Correct because every number's
    /// `doubleValue` is its exact value rounded to nearest, and rounding is monotone: different
    /// nearest doubles order their values; equal ones fall back to exact decimals (allocates;
    /// only for equal-looking values of different cases, or big integers).
    static func compareNumbers(_ a: JSONValue, _ b: JSONValue) -> Int? {
        switch (a, b) {
        case let (.int(x), .int(y)): return x == y ? 0 : (x < y ? -1 : 1)
        default: break
        }
        guard let x = a.doubleValue, let y = b.doubleValue, !x.isNaN, !y.isNaN else { return nil }
        if x != y { return x < y ? -1 : 1 }
        switch (a, b) {
        case (.double, .double): return 0
        case let (.int(i), .double), let (.double, .int(i)):
            if i.magnitude <= 1 << 53 { return 0 }
        default: break
        }
        guard let p = DecimalText(a), let q = DecimalText(b) else { return 0 }   // ±infinity
        return DecimalText.compare(p, q)
    }
}

extension JSONValue: Hashable {
    /// Hashes consistently with `==` (numbers by value).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .bool(let b): hasher.combine(1 as UInt8); hasher.combine(b)
        case .int(let i): hasher.combine(2 as UInt8); hasher.combine(Double(i))
        case .double(let d): hasher.combine(2 as UInt8); hasher.combine(d)
        case .number(let n): hasher.combine(2 as UInt8); hasher.combine(n.doubleValue)
        case .string(let s): hasher.combine(3 as UInt8); hasher.combine(s.utf8.count); for b in s.utf8 { hasher.combine(b) }
        case .array(let a): hasher.combine(4 as UInt8); hasher.combine(a)
        case .object(let o): hasher.combine(5 as UInt8); hasher.combine(o)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// `nil` is `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object literal (members in the order written).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text of the value.
    public var description: String {
        var w = JSONWriter()
        w.value(self)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
