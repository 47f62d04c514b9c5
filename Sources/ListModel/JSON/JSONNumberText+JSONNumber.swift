import JSONOutput

/// Number text of the values only the view-model core has (kept numbers, ``JSONValue``).
extension JSONNumberText {
    /// Appends the text a template or group key uses for a kept number: like an `Int64` when it
    /// is an integer in range, like its nearest `Double` when that double has the same value,
    /// else the exact value's digits (``DecimalText/shownText``) — one form either way.
    static func appendNumber(_ n: JSONNumber, to out: inout ByteBuffer) {
        if let i = JSONValue.number(n).intValue { appendInt(i, to: &out); return }
        let d = n.doubleValue
        let exact = n.decimal
        if let nearest = DecimalText(.double(d)), DecimalText.compare(nearest, exact) == 0 {
            appendShown(d, to: &out)
        } else {
            out.append(utf8: exact.shownText)
        }
    }

    /// Appends the text a template or group key uses for a `Double`: what the JSON writer prints
    /// (``appendDouble(_:to:)``) below 10^16, and from there up to 10^21 plain digits, as an
    /// integer's are (`1e20` → `100000000000000000000`), so that a number's text follows one
    /// rule (``DecimalText/shownText``) whether or not its value is exactly a double. Zero has no
    /// sign here (`-0` is written `0`), as in the exact rule and in comparisons.
    @inline(__always)
    static func appendShown(_ d: Double, to out: inout ByteBuffer) {
        if d == 0 { out.append(utf8: "0"); return }
        let magnitude = abs(d)
        if magnitude >= 1e16, magnitude < 1e21, let exact = DecimalText(.double(d)) {
            out.append(utf8: exact.shownText)
        } else {
            appendDouble(d, to: &out)
        }
    }

    /// The text a template or group key uses for a number.
    static func text(_ v: JSONValue) -> String {
        var out = ByteBuffer(capacity: 32)
        switch v {
        case .int(let i): appendInt(i, to: &out)
        case .double(let d): appendShown(d, to: &out)
        case .number(let n): appendNumber(n, to: &out)
        default: break
        }
        return out.string
    }
}
