/// Locale-free number text: shortest round-trip form, no `.0` on integral values.
@usableFromInline package enum JSONNumberText {
    /// Appends the decimal digits of `v`.
    @inlinable @inline(__always)
    package static func appendInt(_ v: Int64, to out: inout [UInt8]) {
        if v >= 0 && v < 10 { out.append(UInt8(truncatingIfNeeded: v) &+ 0x30); return }
        var buf: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes of stack
        withUnsafeMutableBytes(of: &buf) { raw in
            let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var k = 0
            if v < 0 { p[0] = UInt8(ascii: "-"); k = 1 }
            k += write(UInt(v.magnitude), to: p + k)
            out.append(contentsOf: UnsafeBufferPointer(start: p, count: k))
        }
    }

    /// ``appendInt(_:to:)-([UInt8])`` into a ``ByteBuffer``.
    @inlinable @inline(__always)
    package static func appendInt(_ v: Int64, to out: inout ByteBuffer) {
        out.write(reserving: 20) { $0.putInt(Int(v)) }
    }

    /// Writes the decimal digits of `v` at `p`; returns how many bytes were written (≤ 20).
    ///
    /// Two digits per step, for the length and for the digits: a row's object has four to
    /// five numbers (its index path, tag range, accessibility suffix), written one digit per
    /// step before — a division to count it, another to write it. A page's rows: 735 → 692
    /// instructions a row (callgrind, random pages by token, 50 rows a page).
    @inlinable @inline(__always)
    package static func write(_ v: UInt, to p: UnsafeMutablePointer<UInt8>) -> Int {
        if v < 10 { p[0] = UInt8(truncatingIfNeeded: v) &+ 0x30; return 1 }
        var len = 2
        var t = v
        while t >= 100 { len &+= 2; t /= 100 }
        if t < 10 { len &-= 1 }
        var n = v
        var k = len
        while n >= 10 {
            let q = n / 100
            writePair(n &- q &* 100, to: p + (k &- 2))
            k &-= 2
            n = q
        }
        if k == 1 { p[0] = UInt8(truncatingIfNeeded: n) &+ 0x30 }
        return len
    }

    /// How many decimal digits ``write(_:to:)`` writes for `v`.
    package static func digitCount(_ v: UInt) -> Int {
        var n = 1, t = v
        while t >= 10 { n += 1; t /= 10 }
        return n
    }

    /// Writes `pair` (0–99) as two digits at `p`.
    @inlinable @inline(__always)
    static func writePair(_ pair: UInt, to p: UnsafeMutablePointer<UInt8>) {
        let tens = pair / 10
        p[0] = UInt8(truncatingIfNeeded: tens) &+ 0x30
        p[1] = UInt8(truncatingIfNeeded: pair &- tens &* 10) &+ 0x30
    }

    /// Writes a static string's bytes at `p`; returns how many bytes were written.
    @inlinable @inline(__always)
    package static func write(_ s: StaticString, to p: UnsafeMutablePointer<UInt8>) -> Int {
        p.initialize(from: s.utf8Start, count: s.utf8CodeUnitCount)
        return s.utf8CodeUnitCount
    }

    /// Appends the shortest JSON text that reads back as `d`: integral values below 1e16 print
    /// as integers (`56`), others use Swift's shortest round-trip digits with a JSON exponent
    /// (`1e-7`, `1.5e+300`). Non-finite values print `null` (JSON has no NaN/Infinity).
    @inlinable
    package static func appendDouble(_ d: Double, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: doubleCapacity) { room in
            out.append(contentsOf: UnsafeBufferPointer(start: room.baseAddress!, count: write(d, to: room.baseAddress!)))
        }
    }

    /// ``appendDouble(_:to:)-([UInt8])`` into a ``ByteBuffer``.
    @inlinable
    package static func appendDouble(_ d: Double, to out: inout ByteBuffer) {
        out.write(reserving: doubleCapacity) { $0.advance(by: write(d, to: $0.end)) }
    }

    /// The most bytes ``write(_:to:)-(Double,_)`` writes (`-1.2345678901234567e-308` is 24).
    @inlinable package static var doubleCapacity: Int { 32 }

    /// Writes the text of ``appendDouble(_:to:)-([UInt8])`` at `p`, which has room for
    /// ``doubleCapacity`` bytes; returns how many bytes were written.
    @inlinable
    package static func write(_ d: Double, to p: UnsafeMutablePointer<UInt8>) -> Int {
        guard d.isFinite else { return write("null", to: p) }
        if abs(d) < 1e16, Double(Int64(d)) == d {
            if d == 0 && d.sign == .minus { return write("-0", to: p) }
            if d < 0 { p[0] = UInt8(ascii: "-") }
            return (d < 0 ? 1 : 0) + write(UInt(Int64(d).magnitude), to: d < 0 ? p + 1 : p)
        }
        var text = shortest(d)
        return text.withUTF8 { utf8 in
            p.initialize(from: utf8.baseAddress!, count: utf8.count)
            return utf8.count
        }
    }

    /// Swift's shortest description, normalised to JSON: drop `.0` before an exponent or at the
    /// end, drop leading zeros of the exponent.
    @inlinable
    package static func shortest(_ d: Double) -> String {
        var s = d.description                     // e.g. "1234.5", "1e-05", "1.5e+300"
        if let e = s.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            var mant = String(s[..<e])
            var exp = String(s[s.index(after: e)...])
            if mant.hasSuffix(".0") { mant.removeLast(2) }
            var sign = ""
            if exp.hasPrefix("-") { sign = "-"; exp.removeFirst() } else if exp.hasPrefix("+") { sign = "+"; exp.removeFirst() }
            while exp.count > 1 && exp.hasPrefix("0") { exp.removeFirst() }
            s = mant + "e" + sign + exp
        } else if s.hasSuffix(".0") {
            s.removeLast(2)
        }
        return s
    }

    /// `true` when ``appendDouble(_:to:)`` writes exactly `text` for `d` (`d` being the
    /// parsed value of the JSON number `text`): then the parser may keep the `Double` alone.
    ///
    /// Fast path, no formatting: plain `123.25`-style text with at most 15 significant digits,
    /// a last fraction digit other than 0 and a value ≥ 0.001. Any decimal with ≤ 15 significant
    /// digits reads back from its nearest double (15 = `DBL_DIG`), so it is that double's
    /// shortest text, which the writer prints in this plain form in that range. Anything else
    /// is formatted and compared.
    @inlinable
    package static func writesBack(_ d: Double, as text: UnsafeBufferPointer<UInt8>) -> Bool {
        var k = 0
        let n = text.count
        if k < n && text[k] == UInt8(ascii: "-") { k += 1 }
        var significant = 0
        var leadingFractionZeros = 0
        var sawPoint = false
        var plain = true
        let intStart = k
        while k < n {
            let c = text[k]
            if c == UInt8(ascii: ".") { sawPoint = true }
            else if c >= 0x30 && c <= 0x39 {
                if significant > 0 || c != 0x30 { significant += 1 } else if sawPoint { leadingFractionZeros += 1 }
            } else { plain = false; break }
            k += 1
        }
        if plain && sawPoint && text[n - 1] != 0x30 && significant <= 15 && significant > 0
            && (text[intStart] != 0x30 || leadingFractionZeros <= 2) {
            return true
        }
        var out: [UInt8] = []
        out.reserveCapacity(24)
        appendDouble(d, to: &out)
        return out.elementsEqual(text)
    }
}
