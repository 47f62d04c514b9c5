import JSONOutput

/// A dotted path into a record (`address.city`), split once at load.
///
/// Paths compare and hash by the code points of their names, as records' member names are
/// looked up: `café` with a precomposed é and with e and a combining accent are two fields.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// The member names, outermost first.
    public let components: [String]

    /// Splits `text` at dots; `nil` when it is empty or has an empty component.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        components = parts
    }

    /// The same names, by code points.
    public static func == (a: FieldPath, b: FieldPath) -> Bool {
        a.components.count == b.components.count && zip(a.components, b.components).allSatisfy { codePointEqual($0, $1) }
    }

    /// Hashes the names' bytes (consistent with `==`).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(components.count)
        for c in components { CodePointKey(c).hash(into: &hasher) }
    }

    /// The dotted text.
    public var description: String { components.joined(separator: ".") }

    /// The value at this path, or `nil` when a member is missing or a step is not an object.
    @inline(__always)
    public func lookup(in record: JSONObject) -> JSONValue? {
        guard var v = record[components[0]] else { return nil }
        var k = 1
        while k < components.count {
            guard case .object(let o) = v, let next = o[components[k]] else { return nil }
            v = next
            k += 1
        }
        return v
    }
}

/// The text a template inserts for a value: strings as-is, numbers in one form whatever their
/// kind (``DecimalText/shownText``), booleans `true`/`false`, and `""` for missing, null,
/// objects and arrays.
/// Also the "string form" of a `groupBy` value.
@inline(__always)
func appendPlainText(_ v: JSONValue?, to out: inout ByteBuffer) {
    guard let v else { return }
    switch v {
    case .string(let s): out.append(utf8: s)
    case .int(let i): JSONNumberText.appendInt(i, to: &out)
    case .double(let d): JSONNumberText.appendShown(d, to: &out)
    case .number(let n): JSONNumberText.appendNumber(n, to: &out)
    case .bool(let b): out.append(b ? "true" : "false")
    default: break
    }
}

/// ``appendPlainText(_:to:)`` as a `String`.
func plainText(_ v: JSONValue?) -> String {
    if case .string(let s)? = v { return s }
    var out = ByteBuffer(capacity: 32)
    appendPlainText(v, to: &out)
    return out.string
}
