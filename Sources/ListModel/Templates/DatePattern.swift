import JSONOutput

/// A Unicode (CLDR/ICU) date pattern parsed once, rendered in one time zone (UTC by default)
/// with the names of one language (``DateNames``; English by default).
///
/// Supported letters: `G` (AD/BC), `y`/`Y` (year; `yy` two digits), `M`/`L` (1 `3`, 2 `03`,
/// 3 `Mar`, 4 `March`, 5 `M`), `d`, `D` (day of year), `E` (1–3 `Wed`, 4 `Wednesday`, 5 `W`),
/// `a` (AM/PM), `h` (1–12), `H` (0–23), `k` (1–24), `K` (0–11), `m`, `s`, `S` (fraction
/// digits), the zone's offset: `Z` (`+0100`; `ZZZZ` `GMT+01:00`; `ZZZZZ` `+01:00`, `Z` at 0),
/// `X` (`+01`, `XX` `+0100`, `XXX` `+01:00`; `Z` at 0), `x` (as `X`, `+00` at 0). Text in `'…'` is literal and
/// `''` is a quote. Any other ASCII letter is an error at load, so typos never pass silently.
///
/// A class, immutable: a formatter step that binds it takes one reference, where the struct
/// it was copied its parts, names and zone (eight references) for every date rendered.
final class DatePattern: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case field(UInt8, Int)
    }

    let parts: [Part]
    let names: DateNames
    /// The zone local times are written in.
    let zone: TimeZoneOffsets

    init(parts: [Part], names: DateNames, zone: TimeZoneOffsets) {
        self.parts = parts
        self.names = names
        self.zone = zone
    }

    static func == (a: DatePattern, b: DatePattern) -> Bool { a.parts == b.parts && a.names == b.names && a.zone == b.zone }

    private static let supported: Set<UInt8> = Set("GyYMLdDEahHkKmsSZXx".utf8)

    /// Parses `pattern`; the error message names the offending letter.
    static func parse(_ pattern: String, names: DateNames = .english, zone: TimeZoneOffsets = .utc) throws(TemplateError) -> DatePattern {
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
        return DatePattern(parts: parts, names: names, zone: zone)
    }

    /// Appends the instant `seconds` (+ `millisecond`) since the epoch as local time in
    /// ``zone``; a `dateOnly` value (a calendar day) is written as it is, in no zone.
    @inline(__always)
    func format(epochSeconds seconds: Int64, millisecond: Int, dateOnly: Bool = false, into out: inout ByteBuffer) {
        let offset = dateOnly ? 0 : zone.offset(at: seconds)
        format(CivilTime(epochSeconds: seconds + Int64(offset), millisecond: millisecond), offset: offset, into: &out)
    }

    /// Renders the civil time `t`, whose UTC offset is `offset`; the output is plain UTF-8 text.
    func format(_ t: CivilTime, offset: Int = 0) -> String {
        var out = ByteBuffer(capacity: 32)
        format(t, offset: offset, into: &out)
        return out.string
    }

    /// Appends the rendered civil time `t` (plain UTF-8), whose UTC offset is `offset`, to
    /// `out`, allocating nothing else.
    func format(_ t: CivilTime, offset: Int = 0, into out: inout ByteBuffer) {
        func pad(_ v: Int, _ n: Int) {
            if v < 0 { out.append(0x2D) }
            let m = v.magnitude
            var digits = 1
            var x = m / 10
            while x > 0 { digits += 1; x /= 10 }
            out.write(reserving: max(n, digits)) { cursor in
                if digits < n { cursor.putDigits(0, width: n - digits) }
                cursor.putDigits(Int(m), width: digits)
            }
        }
        func name(_ s: String) { out.append(utf8: s) }
        func narrow(_ s: String) { s.first.map { name(String($0)) } }
        func text(_ s: StaticString) { out.append(s) }
        /// `+HH`, then `MM` (after `:` when `colon`) when `minutes` or the minutes are not 0.
        func zoneOffset(minutes: Bool, colon: Bool) {
            let total = abs(offset) / 60
            out.append(offset < 0 ? 0x2D : 0x2B)
            pad(total / 60, 2)
            guard minutes || total % 60 != 0 else { return }
            if colon { out.append(0x3A) }
            pad(total % 60, 2)
        }
        for p in parts {
            switch p {
            case .literal(let s): out.append(utf8: s)
            case .field(let c, let n):
                switch c {
                case UInt8(ascii: "G"): text(t.year > 0 ? "AD" : "BC")
                case UInt8(ascii: "y"), UInt8(ascii: "Y"):
                    // `y` counts within its era (`G`), as Unicode patterns do: 1 BC is the year 0.
                    let year = c == UInt8(ascii: "y") && t.year <= 0 ? 1 - t.year : t.year
                    if n == 2 { pad(((year % 100) + 100) % 100, 2) } else { pad(year, n) }
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
                    out.write(reserving: max(n, 3)) { cursor in
                        cursor.putDigits(n == 1 ? ms / 100 : (n == 2 ? ms / 10 : ms), width: min(n, 3))
                        if n > 3 { cursor.putDigits(0, width: n - 3) }
                    }
                case UInt8(ascii: "Z"):
                    if n == 4 { text("GMT"); if offset != 0 { zoneOffset(minutes: true, colon: true) } }
                    else if n == 5 { if offset == 0 { text("Z") } else { zoneOffset(minutes: true, colon: true) } }
                    else { zoneOffset(minutes: true, colon: false) }
                case UInt8(ascii: "X"), UInt8(ascii: "x"):
                    if c == UInt8(ascii: "X"), offset == 0 { text("Z") }
                    else { zoneOffset(minutes: n != 1, colon: n == 3 || n == 5) }
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
