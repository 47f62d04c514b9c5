/// A Unicode (CLDR/ICU) date pattern parsed once, rendered in UTC with the names of one
/// language (``DateNames``; English by default).
///
/// Supported letters: `G` (AD/BC), `y`/`Y` (year; `yy` two digits), `M`/`L` (1 `3`, 2 `03`,
/// 3 `Mar`, 4 `March`, 5 `M`), `d`, `D` (day of year), `E` (1–3 `Wed`, 4 `Wednesday`, 5 `W`),
/// `a` (AM/PM), `h` (1–12), `H` (0–23), `k` (1–24), `K` (0–11), `m`, `s`, `S` (fraction
/// digits), `Z` (`+0000`; `ZZZZZ` → `Z`), `X`/`x` (`Z` / `+00`). Text in `'…'` is literal and
/// `''` is a quote. Any other ASCII letter is an error at load, so typos never pass silently.
struct DatePattern: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case field(UInt8, Int)
    }

    let parts: [Part]
    let names: DateNames

    private static let supported: Set<UInt8> = Set("GyYMLdDEahHkKmsSZXx".utf8)

    /// Parses `pattern`; the error message names the offending letter.
    static func parse(_ pattern: String, names: DateNames = .english) throws(TemplateError) -> DatePattern {
        let u = Array(pattern.utf8)
        guard !u.isEmpty else { throw TemplateError("empty date pattern") }
        var parts: [Part] = []
        var lit: [UInt8] = []
        var i = 0
        func flush() {
            if !lit.isEmpty { parts.append(.literal(String(decoding: lit, as: UTF8.self))); lit = [] }
        }
        while i < u.count {
            let c = u[i]
            if c == UInt8(ascii: "'") {
                if i + 1 < u.count, u[i + 1] == UInt8(ascii: "'") { lit.append(c); i += 2; continue }
                i += 1
                var closed = false
                while i < u.count {
                    if u[i] == UInt8(ascii: "'") {
                        if i + 1 < u.count, u[i + 1] == UInt8(ascii: "'") { lit.append(u[i]); i += 2; continue }
                        closed = true
                        i += 1
                        break
                    }
                    lit.append(u[i]); i += 1
                }
                if !closed { throw TemplateError("unterminated quote in date pattern") }
            } else if (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) {
                guard supported.contains(c) else {
                    throw TemplateError("unsupported date pattern letter '\(Character(Unicode.Scalar(c)))'")
                }
                var n = 1
                while i + n < u.count, u[i + n] == c { n += 1 }
                flush()
                parts.append(.field(c, n))
                i += n
            } else {
                lit.append(c); i += 1
            }
        }
        flush()
        return DatePattern(parts: parts, names: names)
    }

    /// Renders the time; the output is plain UTF-8 text.
    func format(_ t: CivilTime) -> String {
        var out: [UInt8] = []
        format(t, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the rendered time (plain UTF-8) to `out`, allocating nothing else.
    func format(_ t: CivilTime, into out: inout [UInt8]) {
        func pad(_ v: Int, _ n: Int) {
            if v < 0 { out.append(0x2D) }
            let m = v.magnitude
            var digits = 1
            var x = m / 10
            while x > 0 { digits += 1; x /= 10 }
            if digits < n { for _ in 0..<(n - digits) { out.append(0x30) } }
            JSONNumberText.appendInt(Int64(m), to: &out)
        }
        func name(_ s: String) {
            var s = s
            s.withUTF8 { out.append(contentsOf: $0) }
        }
        func narrow(_ s: String) { s.first.map { name(String($0)) } }
        func text(_ s: StaticString) { JSONNumberText.append(s, to: &out) }
        for p in parts {
            switch p {
            case .literal(let s):
                var s = s
                s.withUTF8 { out.append(contentsOf: $0) }
            case .field(let c, let n):
                switch c {
                case UInt8(ascii: "G"): text(t.year > 0 ? "AD" : "BC")
                case UInt8(ascii: "y"), UInt8(ascii: "Y"):
                    if n == 2 { pad(((t.year % 100) + 100) % 100, 2) } else { pad(t.year, n) }
                case UInt8(ascii: "M"), UInt8(ascii: "L"):
                    switch n {
                    case 1, 2: pad(t.month, n)
                    case 3: name(names.shortMonths[t.month - 1])
                    case 4: name(names.months[t.month - 1])
                    default: narrow(names.months[t.month - 1])
                    }
                case UInt8(ascii: "d"): pad(t.day, n)
                case UInt8(ascii: "D"): pad(t.dayOfYear, n)
                case UInt8(ascii: "E"):
                    if n <= 3 { name(names.shortWeekdays[t.weekday]) } else if n == 4 { name(names.weekdays[t.weekday]) } else { narrow(names.weekdays[t.weekday]) }
                case UInt8(ascii: "a"): name(t.hour < 12 ? names.am : names.pm)
                case UInt8(ascii: "h"): pad(t.hour % 12 == 0 ? 12 : t.hour % 12, n)
                case UInt8(ascii: "H"): pad(t.hour, n)
                case UInt8(ascii: "k"): pad(t.hour == 0 ? 24 : t.hour, n)
                case UInt8(ascii: "K"): pad(t.hour % 12, n)
                case UInt8(ascii: "m"): pad(t.minute, n)
                case UInt8(ascii: "s"): pad(t.second, n)
                case UInt8(ascii: "S"):
                    // Three digits of milliseconds, cut to n or padded with zeros.
                    let ms = t.millisecond
                    let d = [ms / 100 % 10, ms / 10 % 10, ms % 10]
                    for k in 0..<min(n, 3) { out.append(UInt8(truncatingIfNeeded: d[k]) &+ 0x30) }
                    if n > 3 { for _ in 0..<(n - 3) { out.append(0x30) } }
                case UInt8(ascii: "Z"): text(n == 5 ? "Z" : (n == 4 ? "GMT" : "+0000"))
                case UInt8(ascii: "X"): text("Z")
                case UInt8(ascii: "x"): text(n == 1 ? "+00" : (n == 2 || n == 4 ? "+0000" : "+00:00"))
                default: break
                }
            }
        }
    }
}

/// The names a ``DatePattern`` writes: months, weekdays, AM/PM of one language.
struct DateNames: Sendable, Equatable {
    let months: [String]
    let shortMonths: [String]
    let weekdays: [String]
    let shortWeekdays: [String]
    let am: String
    let pm: String

    init(_ formats: LocaleFormats) {
        months = formats.months
        shortMonths = formats.shortMonths
        weekdays = formats.weekdays
        shortWeekdays = formats.shortWeekdays
        am = formats.am
        pm = formats.pm
    }

    static let english = DateNames(.english)
}
