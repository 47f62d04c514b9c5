/// A JSON number kept as written: the payload of ``JSONValue/number(_:)``.
///
/// The parser keeps a number's text when neither `Int64` nor `Double` would write it back the
/// same (`9223372036854775808`, `1.50`, `1e2`, `-0`, `9007199254740993.0`), so a record is served
/// exactly as it was stored. Its value is the exact decimal the text denotes: comparisons,
/// sorting and the `number`/`currency` formatters use that, never a rounded `Double`.
public struct JSONNumber: Sendable, Hashable {
    /// The number's JSON text (RFC 8259 number grammar), as written.
    public let text: String

    /// Precondition: `text` is a JSON number whose magnitude fits a finite `Double` (the parser
    /// checks both).
    init(unchecked text: String) { self.text = text }

    /// The nearest `Double` (correctly rounded).
    public var doubleValue: Double { Double(text) ?? 0 }

    /// The exact decimal value.
    var decimal: DecimalText { DecimalText(numberText: text) }

    /// Equal when the texts are equal (`1.5` and `1.50` are different texts but equal numbers:
    /// ``JSONValue``'s equality compares values).
    public static func == (a: JSONNumber, b: JSONNumber) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }
    /// Hashes the text (consistent with `==`).
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
