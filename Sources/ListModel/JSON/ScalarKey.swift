/// A JSON scalar as a canonical text, so that equal values (by JSON value: `42` and `42.0`
/// alike) give equal keys and different ones different keys: `s:` and the string, `n:` and the
/// number, `b:true` / `b:false`. What per-user lists key their partitions by. Strings are
/// compared by code points, never by Swift's canonical equivalence.
public struct ScalarKey: Hashable, Sendable, CustomStringConvertible {
    /// The canonical text: a type prefix and the value.
    public let text: String

    /// The key of a string, number or boolean; nil for null, arrays, objects and non-finite numbers.
    public init?(_ value: JSONValue) {
        switch value {
        case .string(let string): text = "s:" + string
        case .bool(let flag): text = flag ? "b:true" : "b:false"
        case .int(let number): text = "n:\(number)"
        case .double, .number:
            // The exact decimal value's shortest text (what an integer's own digits are too):
            // `2.5`, `2.50` and `25e-1` are one key, `9007199254740993.0` is not `9007199254740992`.
            guard let decimal = DecimalText(value) else { return nil }
            text = "n:" + decimal.jsonText
        default: return nil
        }
    }

    /// The key of the scalar at `field` of a record, or nil when there is none.
    public init?(field: FieldPath, of record: JSONValue) {
        guard case .object(let object) = record, let value = field.lookup(in: object) else { return nil }
        self.init(value)
    }

    /// ``text``.
    public var description: String { text }

    /// Equal by code points (``CodePointKey``), as the stores compare the keys they keep: two
    /// canonically equivalent but different strings are different users' partitions.
    public static func == (a: ScalarKey, b: ScalarKey) -> Bool { CodePointKey(a.text) == CodePointKey(b.text) }
    /// Hashes the UTF-8 bytes of ``text``.
    public func hash(into hasher: inout Hasher) { CodePointKey(text).hash(into: &hasher) }
}
