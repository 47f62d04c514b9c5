import JSONOutput

/// Locale-free en_US decimal formatting (grouping `,`, decimal point `.`), used by the
/// `number` and `currency` formatters.
///
/// Rounding is half-to-even (ICU's and `NumberFormatter`'s default) applied to the number's
/// shortest decimal text — i.e. to the number as written in the JSON, so `2.675` with two
/// digits gives `2.68` rather than the binary artefact `2.67`. A result that rounds to zero
/// carries no minus sign.
struct DecimalText {
    var negative: Bool
    /// Decimal digits (0…9), no leading zeros; empty for zero.
    var digits: [UInt8]
    /// The decimal point sits after this many digits (may be ≤ 0 or beyond `digits.count`).
    var pointPosition: Int

    init(negative: Bool, digits: [UInt8], pointPosition: Int) {
        self.negative = negative
        self.digits = digits
        self.pointPosition = pointPosition
    }

    /// The decimal form of a number; `nil` for a non-number (or a non-finite double).
    ///
    /// This is the number's exact value: an integer's digits, a ``JSONNumber``'s text, and for a
    /// `Double` the shortest text that reads back as it (what the JSON writer prints) — so `0.1`
    /// is the decimal 0.1, not the binary fraction nearest to it.
    init?(_ value: JSONValue) {
        switch value {
        case .int(let i):
            var ds = Array(String(i.magnitude).utf8).map { $0 - 0x30 }
            if ds == [0] { ds = [] }
            let point = ds.count
            while ds.last == 0 { ds.removeLast() }
            self.init(negative: i < 0, digits: ds, pointPosition: point)
        case .double(let d):
            guard d.isFinite else { return nil }
            self.init(numberText: d.description)
        case .number(let n):
            self.init(numberText: n.text)
        default:
            return nil
        }
    }

    /// Parses Swift's shortest description (`1234.5`, `-1.5e-07`, `1e+20`).
    init(shortestText s: String) { self.init(numberText: s) }

    /// Parses number text: JSON's grammar or Swift's description (`-`, digits, `.`, digits,
    /// `e`/`E`, sign, digits). Cost: linear in the text. An exponent beyond ±10^15 saturates
    /// (the JSON parser refuses such numbers unless they are zero).
    init(numberText s: String) {
        negative = false
        var ds: [UInt8] = []
        ds.reserveCapacity(s.utf8.count)
        var point: Int? = nil
        var exp = 0
        var inExponent = false
        var expNegative = false
        for c in s.utf8 {
            if inExponent {
                if c == UInt8(ascii: "-") { expNegative = true }
                else if c >= 0x30 && c <= 0x39 { exp = min(exp * 10 + Int(c - 0x30), 1_000_000_000_000_000) }
            } else if c == UInt8(ascii: "-") { negative = true }
            else if c == UInt8(ascii: ".") { point = ds.count }
            else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { inExponent = true }
            else if c >= 0x30 && c <= 0x39 { ds.append(c - 0x30) }
        }
        if expNegative { exp = -exp }
        var pos = (point ?? ds.count) + exp
        var start = 0
        while start < ds.count && ds[start] == 0 { start += 1; pos -= 1 }
        var endIdx = ds.count
        while endIdx > start && ds[endIdx - 1] == 0 { endIdx -= 1 }
        digits = Array(ds[start..<endIdx])
        pointPosition = digits.isEmpty ? 0 : pos
    }

    /// `true` for zero (of either sign).
    var isZero: Bool { digits.isEmpty }

    /// Whether the value is zero once rounded to `fraction` fraction digits, as
    /// ``formatted(minFraction:maxFraction:grouping:marks:)`` rounds it (half to even): a kept
    /// digit is the first, never 0; with none kept, the first digit dropped decides.
    func roundsToZero(fraction: Int) -> Bool {
        guard let first = digits.first else { return true }
        let keep = pointPosition + fraction
        if keep != 0 { return keep < 0 }
        return first < 5 || (first == 5 && digits.count == 1)
    }

    /// Three-way comparison of the exact values (-1, 0, 1); zero has no sign (`-0` = `0`).
    ///
    /// Cost: linear in the shorter digit string. Digits carry no leading or trailing zeros, so
    /// the point position orders magnitudes before any digit is compared.
    static func compare(_ a: DecimalText, _ b: DecimalText) -> Int {
        if a.isZero || b.isZero {
            if a.isZero && b.isZero { return 0 }
            if a.isZero { return b.negative ? 1 : -1 }
            return a.negative ? -1 : 1
        }
        if a.negative != b.negative { return a.negative ? -1 : 1 }
        let sign = a.negative ? -1 : 1
        if a.pointPosition != b.pointPosition { return a.pointPosition < b.pointPosition ? -sign : sign }
        let n = min(a.digits.count, b.digits.count)
        for k in 0..<n where a.digits[k] != b.digits[k] { return a.digits[k] < b.digits[k] ? -sign : sign }
        if a.digits.count == b.digits.count { return 0 }
        return a.digits.count < b.digits.count ? -sign : sign
    }

    /// The canonical text of the exact value, what ``ScalarKey`` keys numbers by (stores keep
    /// these keys, so the form stays): plain digits when 0.000001 ≤ |x| < 10^21
    /// (`9223372036854775808`, `0.000001`), otherwise `d.ddde+N` / `d.ddde-N`. No `.0`, no `-0`.
    var jsonText: String { text(lowestPlainPoint: -5) }

    /// The text templates, group keys and `as: "string"` sorts use for a number: plain digits
    /// when 0.0001 ≤ |x| < 10^21 (`100000000000000000001`, `0.0001`), otherwise `d.ddde+N` /
    /// `d.ddde-N` (`1e-6`, `1.5e+21`). Below 10^16 this is what the JSON writer prints for a
    /// `Double` of the same value (``JSONNumberText/appendShown(_:to:)``). No `.0`, no `-0`.
    var shownText: String { text(lowestPlainPoint: -3) }

    /// Plain digits when the point lies within 21 places before the first digit and no more
    /// than `-lowestPlainPoint` zeros after it, otherwise exponent form.
    private func text(lowestPlainPoint: Int) -> String {
        if isZero { return "0" }
        var out: [UInt8] = []
        if negative { out.append(UInt8(ascii: "-")) }
        let n = digits.count
        if pointPosition > 0 && pointPosition <= 21 {
            for k in 0..<max(n, pointPosition) {
                if k == pointPosition { out.append(UInt8(ascii: ".")) }
                out.append((k < n ? digits[k] : 0) + 0x30)
            }
        } else if pointPosition <= 0 && pointPosition >= lowestPlainPoint {
            out.append(contentsOf: [0x30, UInt8(ascii: ".")])
            for _ in 0..<(-pointPosition) { out.append(0x30) }
            for d in digits { out.append(d + 0x30) }
        } else {
            out.append(digits[0] + 0x30)
            if n > 1 {
                out.append(UInt8(ascii: "."))
                for d in digits[1...] { out.append(d + 0x30) }
            }
            let e = pointPosition - 1
            out.append(UInt8(ascii: "e"))
            out.append(e < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            out.append(contentsOf: String(e.magnitude).utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Text with `minFraction…maxFraction` fraction digits and optional grouping, with `marks`.
    func formatted(minFraction: Int, maxFraction: Int, grouping: Bool = true, marks: NumberMarks = .english) -> String {
        var ds = digits
        var pos = pointPosition
        let keep = pos + maxFraction
        if keep < ds.count {
            if keep < 0 {
                ds = []
            } else {
                let first = ds[keep]
                let restNonZero = ds[(keep + 1)...].contains { $0 != 0 }
                let lastKeptOdd = keep > 0 && ds[keep - 1] % 2 == 1
                ds.removeSubrange(keep...)
                if first > 5 || (first == 5 && (restNonZero || lastKeptOdd)) {
                    var j = ds.count - 1
                    var carry = true
                    while carry && j >= 0 {
                        if ds[j] == 9 { ds[j] = 0; j -= 1 } else { ds[j] += 1; carry = false }
                    }
                    if carry { ds.insert(1, at: 0); pos += 1 }
                }
            }
        }
        let isZero = !ds.contains { $0 != 0 }
        var out: [UInt8] = []
        out.reserveCapacity(ds.count + 8)
        if negative && !isZero { out.append(UInt8(ascii: "-")) }
        // Integer part.
        var intDigits: [UInt8] = []
        if pos > 0 {
            for j in 0..<pos { intDigits.append(j < ds.count ? ds[j] : 0) }
        }
        while intDigits.count > 1 && intDigits[0] == 0 { intDigits.removeFirst() }
        if intDigits.isEmpty { intDigits = [0] }
        let grouped = grouping && intDigits.count >= 3 + marks.minimumGroupingDigits
        for (j, d) in intDigits.enumerated() {
            if grouped && j > 0 && (intDigits.count - j) % 3 == 0 { out.append(contentsOf: marks.grouping) }
            out.append(d + 0x30)
        }
        // Fraction part.
        var frac: [UInt8] = []
        for j in 0..<maxFraction {
            let idx = pos + j
            frac.append(idx >= 0 && idx < ds.count ? ds[idx] : 0)
        }
        while frac.count > minFraction && frac.last == 0 { frac.removeLast() }
        if !frac.isEmpty {
            out.append(contentsOf: marks.decimal)
            for d in frac { out.append(d + 0x30) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The decimal and grouping marks of a language (``LocaleFormats``), as bytes.
struct NumberMarks: Sendable, Equatable {
    let decimal: [UInt8]
    let grouping: [UInt8]
    let minimumGroupingDigits: Int

    init(_ formats: LocaleFormats) {
        decimal = Array(formats.decimalSeparator.utf8)
        grouping = Array(formats.groupingSeparator.utf8)
        minimumGroupingDigits = formats.minimumGroupingDigits
    }

    static let english = NumberMarks(.english)
}

/// How the `currency:CODE` formatter writes amounts in one language: its marks, and the
/// currency's symbol placed as the language places it (en_US: `$1,234.50`; de: `1.234,50 €`).
/// A class, immutable, for the reason ``DatePattern`` is one.
final class CurrencyStyle: Sendable, Equatable {
    let code: String
    /// Before the digits: `$`, `€`, … or `"CHF "` for codes without a symbol (English).
    let prefix: String
    /// After the digits (`" €"` in German).
    let suffix: String
    let marks: NumberMarks
    let fractionDigits: Int

    static func == (a: CurrencyStyle, b: CurrencyStyle) -> Bool {
        a.code == b.code && a.prefix == b.prefix && a.suffix == b.suffix && a.marks == b.marks && a.fractionDigits == b.fractionDigits
    }

    /// ISO 4217's minor units, where they are not 2.
    private static let zeroDigit: Set<String> = ["JPY", "KRW", "VND", "CLP", "ISK", "HUF", "TWD", "XAF", "XOF", "UGX", "PYG",
                                                 "BIF", "DJF", "GNF", "KMF", "RWF", "UYI", "VUV", "XPF"]
    private static let threeDigit: Set<String> = ["BHD", "KWD", "OMR", "JOD", "TND", "IQD", "LYD"]
    private static let fourDigit: Set<String> = ["CLF", "UYW"]

    /// The largest amount a double is written directly at (see ``appendDirect(_:to:)``): doubles
    /// below 2^46 are closer than 0.01 apart, below 2^42 than 0.001, below 2^39 than 0.0001.
    private var directLimit: Double { fractionDigits <= 2 ? 1e13 : fractionDigits == 3 ? 1e12 : 1e11 }

    /// A style for a three-letter upper-case ISO 4217 code; `nil` for anything else.
    init?(code: String, formats: LocaleFormats = .english) {
        guard code.utf8.count == 3, code.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else { return nil }
        self.code = code
        let placement = formats.currency(code)
        prefix = placement.prefix
        suffix = placement.suffix
        marks = NumberMarks(formats)
        fractionDigits = CurrencyStyle.zeroDigit.contains(code) ? 0
            : CurrencyStyle.threeDigit.contains(code) ? 3 : CurrencyStyle.fourDigit.contains(code) ? 4 : 2
    }

    /// Appends `format(DecimalText(value))` for a number value with no more fraction digits
    /// than the currency uses (every integer, and doubles like `1234.5` — the common amounts),
    /// without building strings; `false` (nothing written) for anything else.
    ///
    /// A double qualifies when `x = round(d·10^f)` gives back exactly `d` as `x / 10^f` and `|d|`
    /// is below ``directLimit`` (where doubles are closer together than `10^-f`): then `x / 10^f`
    /// is the only decimal with ≤ f fraction digits that reads back as `d`, so it is what the
    /// shortest text rounds to, and no rounding is needed. (At 1e13 for every currency, two
    /// three-decimal amounts above 2^42 read back as one double, and `KWD 9,106,079,951,530.531`
    /// was written `….532`.)
    func appendDirect(_ value: JSONValue, to out: inout ByteBuffer) -> Bool {
        var negative: Bool
        var units: UInt64        // the amount × 10^fractionDigits
        var scale: UInt64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        switch value {
        case .int(let i):
            guard i.magnitude <= UInt64.max / scale else { return false }
            negative = i < 0
            units = i.magnitude * scale
        case .double(let d):
            guard d.isFinite, abs(d) < directLimit else { return false }
            let x = (d * Double(scale)).rounded()
            guard x / Double(scale) == d else { return false }
            negative = d < 0
            units = UInt64(abs(x))
        default:
            return false
        }
        if units == 0 { negative = false }
        if negative { out.append(0x2D) }
        out.append(utf8: prefix)
        let whole = units / scale
        var frac = units % scale
        // Integer part, grouped every three digits.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buf in
            let t = buf.baseAddress!
            var n = 0
            var w = whole
            repeat {
                t[31 - n] = UInt8(truncatingIfNeeded: w % 10) &+ 0x30
                n += 1
                w /= 10
            } while w > 0
            let grouped = n >= 3 + marks.minimumGroupingDigits
            for j in 0..<n {
                if grouped && j > 0 && (n - j) % 3 == 0 { out.append(marks.grouping) }
                out.append(t[32 - n + j])
            }
            if fractionDigits > 0 {
                out.append(marks.decimal)
                for k in stride(from: fractionDigits, to: 0, by: -1) {
                    t[k] = UInt8(truncatingIfNeeded: frac % 10) &+ 0x30
                    frac /= 10
                }
                out.append(UnsafeBufferPointer(start: t + 1, count: fractionDigits))
            }
        }
        out.append(utf8: suffix)
        return true
    }

    /// `-$1,234.50` style text.
    func format(_ d: DecimalText) -> String {
        var positive = d
        positive.negative = false
        let body = positive.formatted(minFraction: fractionDigits, maxFraction: fractionDigits, marks: marks)
        let zero = !body.utf8.contains { $0 >= 0x31 && $0 <= 0x39 }
        return (d.negative && !zero ? "-" : "") + prefix + body + suffix
    }
}
