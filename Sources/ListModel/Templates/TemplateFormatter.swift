import JSONOutput

/// One `|name[:argument]` step of a template placeholder.
///
/// A formatter that cannot interpret its input (e.g. `number` on `"n/a"`, `date` on an
/// unparseable string) passes the text through unchanged, so `|default:` still applies to empty
/// values and nothing is silently lost.
enum TemplateFormatter: Sendable, Equatable {
    case upper
    case lower
    case defaultText(String)
    /// `number` (0…3 fraction digits, like `NumberFormatter.decimal`) or `number:N` (exactly N).
    case number(Int?, NumberMarks)
    case currency(CurrencyStyle)
    case date(DatePattern)
    /// `prefix:TEXT`: TEXT before the value, only when it renders non-empty.
    case prefix(String)
    /// `suffix:TEXT`: TEXT after the value, only when it renders non-empty.
    case suffix(String)
    /// `nonzero`: `""` for a zero number (so a badge of 0 disappears).
    case nonzero
    /// `label`: the text the spec's `keyLabels` gives the value, else the value itself.
    case label([CodePointKey: String])

    /// Parses `name` or `name:argument`; `number`, `currency` and `date` write as `formats` says,
    /// `date` in local time of `zone`, and `labels` is the spec's `keyLabels` (for `label`).
    static func parse(_ text: Substring, formats: LocaleFormats = .english, labels: [CodePointKey: String] = [:],
                      zone: TimeZoneOffsets = .utc) throws(TemplateError) -> TemplateFormatter {
        let name: Substring
        let arg: Substring?
        if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            arg = text[text.index(after: colon)...]
        } else {
            name = text
            arg = nil
        }
        switch name {
        case "upper", "lower":
            if arg != nil { throw TemplateError("formatter '\(name)' takes no argument") }
            return name == "upper" ? .upper : .lower
        case "default":
            guard let arg else { throw TemplateError("formatter 'default' needs ':TEXT'") }
            return .defaultText(String(arg))
        case "number":
            guard let arg else { return .number(nil, NumberMarks(formats)) }
            guard let n = Int(arg), n >= 0, n <= 20, arg.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw TemplateError("formatter 'number:N' needs N in 0…20, got '\(arg)'")
            }
            return .number(n, NumberMarks(formats))
        case "currency":
            guard let arg, let style = CurrencyStyle(code: String(arg), formats: formats) else {
                throw TemplateError("formatter 'currency:CODE' needs a three-letter upper-case ISO 4217 code")
            }
            return .currency(style)
        case "date":
            guard let arg, !arg.isEmpty else { throw TemplateError("formatter 'date:PATTERN' needs a pattern") }
            return .date(try DatePattern.parse(String(arg), names: DateNames(formats), zone: zone))
        case "prefix", "suffix":
            guard let arg, !arg.isEmpty else { throw TemplateError("formatter '\(name):TEXT' needs a text") }
            return name == "prefix" ? .prefix(String(arg)) : .suffix(String(arg))
        case "nonzero", "label":
            if arg != nil { throw TemplateError("formatter '\(name)' takes no argument") }
            guard name == "label" else { return .nonzero }
            return .label(labels)
        default:
            throw TemplateError("unknown formatter '\(name)'")
        }
    }

    /// Applies the formatter to the current value (`value` is non-nil only for the first step).
    func apply(value: JSONValue?, text: String) -> String {
        switch self {
        case .upper: return text.uppercased()
        case .lower: return text.lowercased()
        case .defaultText(let t): return text.isEmpty ? t : text
        case .number(let n, let marks):
            guard let d = TemplateFormatter.decimal(value, text) else { return text }
            return d.formatted(minFraction: n ?? 0, maxFraction: n ?? 3, marks: marks)
        case .currency(let style):
            guard let d = TemplateFormatter.decimal(value, text) else { return text }
            return style.format(d)
        case .date(let pattern):
            var out = ByteBuffer(capacity: 32)
            if let v = value, let secs = v.doubleValue {
                guard secs.isFinite, abs(secs) < 1e13 else { return text }
                let (seconds, millisecond) = TemplateFormatter.epochParts(secs)
                pattern.format(epochSeconds: seconds, millisecond: millisecond, into: &out)
            } else if let parsed = CivilTime.parseISO8601(text) {
                pattern.format(epochSeconds: parsed.seconds, millisecond: parsed.millisecond, dateOnly: parsed.dateOnly, into: &out)
            } else if let secs = TemplateFormatter.numericText(text), abs(secs) < 1e13 {
                let (seconds, millisecond) = TemplateFormatter.epochParts(secs)
                pattern.format(epochSeconds: seconds, millisecond: millisecond, into: &out)
            } else {
                return text
            }
            return out.string
        case .prefix(let t): return text.isEmpty ? text : t + text
        case .suffix(let t): return text.isEmpty ? text : text + t
        case .nonzero:
            guard let d = TemplateFormatter.decimal(value, text), d.isZero else { return text }
            return ""
        case .label(let labels): return labels[CodePointKey(text)] ?? text
        }
    }

    /// Appends the result of this formatter as the only step of a chain, straight as bytes,
    /// for the common inputs (a number for `currency`, an ISO 8601 string or a number for
    /// `date`); returns `false` without writing when the general path must be taken. The
    /// output is byte-for-byte that of ``apply(value:text:)``.
    @inline(__always)
    func appendDirect(value: JSONValue?, to out: inout ByteBuffer) -> Bool {
        switch self {
        case .currency(let style):
            guard let value else { return false }
            return style.appendDirect(value, to: &out)
        case .date(let pattern):
            guard let value else { return false }
            switch value {
            case .string(let text):
                guard let parsed = CivilTime.parseISO8601(text) else { return false }
                pattern.format(epochSeconds: parsed.seconds, millisecond: parsed.millisecond, dateOnly: parsed.dateOnly, into: &out)
            case .int, .double, .number:
                guard let secs = value.doubleValue, secs.isFinite, abs(secs) < 1e13 else { return false }
                let (seconds, millisecond) = TemplateFormatter.epochParts(secs)
                pattern.format(epochSeconds: seconds, millisecond: millisecond, into: &out)
            default:
                return false
            }
            return true
        default:
            return false
        }
    }

    /// The decimal form of a number value, or of text that is a JSON number.
    private static func decimal(_ value: JSONValue?, _ text: String) -> DecimalText? {
        number(value, text).flatMap(DecimalText.init)
    }

    /// A number value, or text that is a JSON number, as a number value.
    static func number(_ value: JSONValue?, _ text: String) -> JSONValue? {
        if let v = value, v.isNumber { return v }
        guard !text.isEmpty, let parsed = try? JSONParser.parse(text), parsed.isNumber else { return nil }
        return parsed
    }

    private static func numericText(_ text: String) -> Double? {
        guard !text.isEmpty, let parsed = try? JSONParser.parse(text) else { return nil }
        return parsed.doubleValue
    }
}

extension TemplateFormatter {
    /// Epoch seconds (|secs| < 1e13) as whole seconds and a millisecond, both taken from the
    /// instant's milliseconds rounded down, as a `date` sort reads it: `1700000000.123` is 123 ms
    /// (splitting the fraction off first gave 0.12299… s, written as 122).
    static func epochParts(_ secs: Double) -> (seconds: Int64, millisecond: Int) {
        let milliseconds = epochMilliseconds(secs)
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : -((-milliseconds + 999) / 1000)
        return (seconds, Int(milliseconds - seconds * 1000))
    }

    /// The instant's milliseconds, rounded down, of epoch seconds `secs` (|secs| < 1e13) as
    /// written: `secs · 1000` carries a rounding of its own (`1094294622.327 · 1000` is
    /// `1094294622326.9999…`, which rounded down was 326 ms; `1.001` gave 1000), so a product
    /// within two units in the last place of a whole number is that number.
    static func epochMilliseconds(_ secs: Double) -> Int64 {
        let product = secs * 1000
        let whole = product.rounded()
        return Int64(abs(product - whole) <= 2 * whole.ulp ? whole : product.rounded(.down))
    }
}
