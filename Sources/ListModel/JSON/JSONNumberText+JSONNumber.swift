import JSONOutput

/// Number text of the values only the view-model core has (kept numbers, ``JSONValue``).
extension JSONNumberText {
    /// Appends the text a template or group key uses for a kept number: like an `Int64` when it
    /// is an integer in range, like its nearest `Double` when that double's shortest text has
    /// the same value, else the shortest text of the exact value (``DecimalText/jsonText``).
    static func appendNumber(_ n: JSONNumber, to out: inout ByteBuffer) {
        if let i = JSONValue.number(n).intValue { appendInt(i, to: &out); return }
        let d = n.doubleValue
        let exact = n.decimal
        if let nearest = DecimalText(.double(d)), DecimalText.compare(nearest, exact) == 0 {
            appendDouble(d, to: &out)
        } else {
            out.append(utf8: exact.jsonText)
        }
    }

    /// The text a template or group key uses for a number.
    static func text(_ v: JSONValue) -> String {
        var out = ByteBuffer(capacity: 32)
        switch v {
        case .int(let i): appendInt(i, to: &out)
        case .double(let d): appendDouble(d, to: &out)
        case .number(let n): appendNumber(n, to: &out)
        default: break
        }
        return out.string
    }
}
