import JSONOutput

/// A text template, parsed once at load and rendered without re-parsing.
///
/// `{path}` inserts a record field (dotted paths reach into objects), `{{` and `}}` are literal
/// braces, `{$key}`/`{$count}` insert a section's key and row count (section templates only),
/// and `|formatter` steps chain after the path or variable.
public struct Template: Sendable, Equatable {
    /// Where a template is used, which decides what it may refer to.
    public enum Scope: Sendable {
        /// Row templates: record fields only.
        case row
        /// Section templates (title, icon, header, footer): `$key` and `$count` only.
        case section
    }

    enum Variable: Sendable, Equatable { case key, count }

    enum Segment: Sendable, Equatable {
        case literal([UInt8])
        case field(Field)
        case variable(Variable, [TemplateFormatter])
    }

    /// A record field and its formatters. A class so that matching a segment retains one
    /// reference: with the path and the formatters as the case's two values, each field a row
    /// rendered copied both (an outlined copy, two retains and two releases). Making a demo row
    /// took 230 instructions fewer of its 8,300 (callgrind, 100,000-record start).
    final class Field: Sendable, Equatable {
        let path: FieldPath
        let formatters: [TemplateFormatter]

        init(_ path: FieldPath, _ formatters: [TemplateFormatter]) {
            self.path = path
            self.formatters = formatters
        }

        static func == (a: Field, b: Field) -> Bool { a.path == b.path && a.formatters == b.formatters }
    }

    /// The template text as written in the configuration.
    public let source: String
    let segments: [Segment]

    /// `true` when the template has no placeholders.
    public var isConstant: Bool { segments.allSatisfy { if case .literal = $0 { return true } else { return false } } }

    /// A template that renders `text` literally (no placeholders are recognised).
    public init(literal text: String) {
        source = text
        segments = text.isEmpty ? [] : [.literal(Array(text.utf8))]
    }

    /// Parses `text`; the error says what is wrong (unmatched brace, unknown formatter, …).
    public init(parsing text: String, scope: Scope) throws(TemplateError) {
        try self.init(parsing: text, scope: scope, formats: .english)
    }

    /// Parses `text`; its `number`, `currency` and `date` formatters write as `formats` says,
    /// `date` in local time of `zone`, and `label` maps values through `labels` (a spec's `keyLabels`).
    public init(parsing text: String, scope: Scope, formats: LocaleFormats, labels: [CodePointKey: String] = [:],
                zone: TimeZoneOffsets = .utc) throws(TemplateError) {
        source = text
        var segs: [Segment] = []
        var lit: [UInt8] = []
        let u = Array(text.utf8)
        var i = 0
        while i < u.count {
            let c = u[i]
            if c == UInt8(ascii: "{") {
                if i + 1 < u.count, u[i + 1] == UInt8(ascii: "{") { lit.append(c); i += 2; continue }
                guard let close = u[(i + 1)...].firstIndex(of: UInt8(ascii: "}")) else {
                    throw TemplateError("unclosed '{' at character \(i)")
                }
                let inner = u[(i + 1)..<close]
                if inner.contains(UInt8(ascii: "{")) { throw TemplateError("'{' inside a placeholder at character \(i)") }
                if !lit.isEmpty { segs.append(.literal(lit)); lit = [] }
                segs.append(try Template.placeholder(Substring(String(decoding: inner, as: UTF8.self)), scope: scope, formats: formats,
                                                     labels: labels, zone: zone))
                i = close + 1
            } else if c == UInt8(ascii: "}") {
                guard i + 1 < u.count, u[i + 1] == UInt8(ascii: "}") else {
                    throw TemplateError("unmatched '}' at character \(i) (write '}}' for a literal brace)")
                }
                lit.append(c); i += 2
            } else {
                lit.append(c); i += 1
            }
        }
        if !lit.isEmpty { segs.append(.literal(lit)) }
        segments = segs
    }

    private static func placeholder(_ inner: Substring, scope: Scope, formats: LocaleFormats, labels: [CodePointKey: String],
                                    zone: TimeZoneOffsets) throws(TemplateError) -> Segment {
        let pieces = inner.split(separator: "|", omittingEmptySubsequences: false)
        let head = pieces[0]
        var formatters: [TemplateFormatter] = []
        for p in pieces.dropFirst() {
            if p.isEmpty { throw TemplateError("empty formatter in '{\(inner)}'") }
            formatters.append(try TemplateFormatter.parse(p, formats: formats, labels: labels, zone: zone))
        }
        if head.hasPrefix("$") {
            guard scope == .section else { throw TemplateError("'{\(head)}' is only available in section templates") }
            switch head {
            case "$key": return .variable(.key, formatters)
            case "$count": return .variable(.count, formatters)
            default: throw TemplateError("unknown variable '\(head)' (use $key or $count)")
            }
        }
        guard scope == .row else {
            throw TemplateError("section templates cannot read record fields ('{\(head)}'); use {$key} or {$count}")
        }
        guard let path = FieldPath(String(head)) else { throw TemplateError("empty field path in '{\(inner)}'") }
        return .field(Field(path, formatters))
    }

    /// Appends the rendered text (raw UTF-8) for a record.
    @inline(__always)
    func render(record: JSONObject, into out: inout ByteBuffer) {
        // In place: `for s in segments` copied each segment, a retain and a release of its
        // payload (ten of each a row of the demo list).
        segments.withUnsafeBufferPointer { segments in
            for i in segments.indices {
                switch segments[i] {
                case .literal(let b): out.append(b)
                case .field(let f):
                    let v = f.path.lookup(in: record)
                    if f.formatters.isEmpty { appendPlainText(v, to: &out) } else { Template.applyChain(f.formatters, v, &out) }
                case .variable: break
                }
            }
        }
    }

    /// Appends the rendered text for a section's key and row count.
    func render(key: String, count: Int, into out: inout ByteBuffer) {
        for s in segments {
            switch s {
            case .literal(let b): out.append(b)
            case .variable(let v, let fs):
                let value: JSONValue = v == .key ? .string(key) : .int(Int64(count))
                if fs.isEmpty { appendPlainText(value, to: &out) } else { Template.applyChain(fs, value, &out) }
            case .field: break
            }
        }
    }

    /// The rendered text for a section's key and row count.
    func renderString(key: String, count: Int) -> String {
        var out = ByteBuffer(capacity: 64)
        render(key: key, count: count, into: &out)
        return out.string
    }

    /// The rendered text for a record.
    public func render(record: JSONObject) -> String {
        var out = ByteBuffer(capacity: 64)
        render(record: record, into: &out)
        return out.string
    }

    /// The number a `number` or `currency` step writes of `value` (or `text`) at `fraction`
    /// fraction digits, as far as `nonzero` cares: 0 when it rounds to zero (`0.0004` written
    /// `0`), else the number itself.
    private static func writtenNumber(_ value: JSONValue?, _ text: String, fraction: Int) -> JSONValue? {
        guard let number = TemplateFormatter.number(value, text) else { return nil }
        guard let decimal = DecimalText(number), decimal.roundsToZero(fraction: fraction) else { return number }
        return .int(0)
    }

    private static func applyChain(_ fs: [TemplateFormatter], _ v: JSONValue?, _ out: inout ByteBuffer) {
        if fs.count == 1, fs[0].appendDirect(value: v, to: &out) { return }
        var text = plainText(v)
        var value = v
        // The number a `number` or `currency` step just wrote (0 when it rounded to zero): a
        // `nonzero` right after it tests that, not the text, which reads as a number in English
        // only ("0.00"; not "0,00", "0,00 €"). Found only when a `nonzero` follows (a row's render
        // pays for no second parse otherwise).
        var written: JSONValue?
        for (index, f) in fs.enumerated() {
            let formatted: String
            if case .nonzero = f, let written { formatted = f.apply(value: written, text: text) } else { formatted = f.apply(value: value, text: text) }
            written = nil
            if index + 1 < fs.count, case .nonzero = fs[index + 1] {
                switch f {
                case .number(let n, _): written = writtenNumber(value, text, fraction: n ?? 3)
                case .currency(let style): written = writtenNumber(value, text, fraction: style.fractionDigits)
                default: break
                }
            }
            text = formatted
            value = nil
        }
        out.append(utf8: text)
    }

    /// Equal when parsed from the same text.
    public static func == (a: Template, b: Template) -> Bool { a.source == b.source && a.segments == b.segments }
}
