/// A JSON value.
///
/// Numbers keep integers exact: an integer literal that fits in `Int64` parses as ``int(_:)``,
/// every other number as ``double(_:)``. Equality and hashing are numeric across both cases
/// (`.int(1) == .double(1.0)`), objects compare without regard to member order.
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue {
    /// The string payload, if this is a string.
    @inlinable public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The numeric payload as a `Double`, if this is a number.
    @inlinable public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
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

    /// `true` for `.int` and `.double`.
    @inlinable public var isNumber: Bool {
        switch self {
        case .int, .double: return true
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
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension JSONValue: Equatable {
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.int(a), .double(b)), let (.double(b), .int(a)): return numericEqual(a, b)
        case let (.string(a), .string(b)): return a.utf8.elementsEqual(b.utf8)
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        default: return false
        }
    }

    /// Exact comparison of an integer with a double (no rounding of the integer).
    static func numericEqual(_ i: Int64, _ d: Double) -> Bool {
        guard d >= -9.223372036854775808e18, d < 9.223372036854775808e18 else { return false }
        let t = Int64(d)
        return Double(t) == d && t == i
    }
}

extension JSONValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .bool(let b): hasher.combine(1 as UInt8); hasher.combine(b)
        case .int(let i): hasher.combine(2 as UInt8); hasher.combine(Double(i))
        case .double(let d): hasher.combine(2 as UInt8); hasher.combine(d)
        case .string(let s): hasher.combine(3 as UInt8); hasher.combine(s.utf8.count); for b in s.utf8 { hasher.combine(b) }
        case .array(let a): hasher.combine(4 as UInt8); hasher.combine(a)
        case .object(let o): hasher.combine(5 as UInt8); hasher.combine(o)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
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
