/// The choice of a language by `Accept-Language` (RFC 9110 §12.5.4), read byte by byte: on
/// every read of a list in several languages, so it allocates nothing and needs no Foundation.
enum AcceptLanguage {
    /// The language to answer in: RFC 4647 §3.4 lookup of the header's ranges (by weight, ties in
    /// the order given, `q=0` excluded) among `available`; the first of `available` when nothing
    /// matches, `*` included.
    ///
    /// Items are split at `,` (empty ones dropped), an item's range is what comes before its first
    /// `;`, without spaces and tabs (an item without one is skipped). Of its parameters, a `q`
    /// (any case) sets the weight, the last one winning; a weight that is not a number is 0. Ranges
    /// compare without regard to ASCII case; a range with other bytes matches no language tag.
    static func choose(_ header: String?, among available: [String]) -> String {
        guard let first = available.first else { return "en" }
        guard available.count > 1, var header, !header.isEmpty else { return first }
        let chosen = header.withUTF8 { bytes in best(in: bytes, among: available) }
        return chosen.map { available[$0] } ?? first
    }

    /// The index in `available` of the language the best-weighted matching range picks.
    private static func best(in bytes: UnsafeBufferPointer<UInt8>, among available: [String]) -> Int? {
        var best: (weight: Double, index: Int)? = nil
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != comma { end += 1 }
            if let (range, weight) = item(bytes, start, end), weight > 0, best.map({ weight > $0.weight }) ?? true,
               !(range.count == 1 && bytes[range.lowerBound] == star), let index = lookup(bytes, range, among: available) {
                best = (weight, index)
            }
            start = end + 1
        }
        return best?.index
    }

    /// An item's range (nil when it has none) and weight.
    private static func item(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (Range<Int>, Double)? {
        var cut = start
        while cut < end && bytes[cut] != semicolon { cut += 1 }
        let range = trimmed(bytes, start, cut)
        guard !range.isEmpty else { return nil }
        var weight = 1.0
        var parameter = cut + 1
        while parameter <= end {
            var next = parameter
            while next < end && bytes[next] != semicolon { next += 1 }
            if let q = quality(bytes, parameter, next) { weight = q }
            parameter = next + 1
        }
        return (range, weight)
    }

    /// The weight a parameter sets, nil when it is not `q=…`. As `name=value` split once at `=`
    /// with empty pieces dropped: leading `=`s are skipped, the value is all after the next `=`.
    private static func quality(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        var nameStart = start
        while nameStart < end && bytes[nameStart] == equals { nameStart += 1 }
        var equal = nameStart
        while equal < end && bytes[equal] != equals { equal += 1 }
        guard equal < end, equal + 1 < end else { return nil }
        let name = trimmed(bytes, nameStart, equal)
        guard name.count == 1, bytes[name.lowerBound] | 0x20 == UInt8(ascii: "q") else { return nil }
        let value = trimmed(bytes, equal + 1, end)
        if let weight = qvalue(bytes, value) { return weight }
        // Anything else as Swift reads a number (`1e-1`, `+.5`, `nan`); short values make an
        // inline string, no allocation.
        return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self)) ?? 0
    }

    /// A weight as RFC 9110 writes them: a digit, then `.` and up to three digits (`0.9`, `1`,
    /// `0.125`), read as the same `Double` that `Double("0.9")` is (a quotient of two exact
    /// integers rounds once, as the parse does); nil for any other form.
    private static func qvalue(_ bytes: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> Double? {
        guard (1...5).contains(value.count), isDigit(bytes[value.lowerBound]) else { return nil }
        var number = Int(bytes[value.lowerBound] - UInt8(ascii: "0"))
        var scale = 1
        if value.count > 1 {
            guard bytes[value.lowerBound + 1] == UInt8(ascii: ".") else { return nil }
            for i in (value.lowerBound + 2)..<value.upperBound {
                guard isDigit(bytes[i]) else { return nil }
                number = number * 10 + Int(bytes[i] - UInt8(ascii: "0"))
                scale *= 10
            }
        }
        return Double(number) / Double(scale)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// RFC 4647 lookup of one range: the range, then shorter by a subtag at a time (a
    /// single-letter subtag goes with the one before it).
    private static func lookup(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, among available: [String]) -> Int? {
        var end = range.upperBound
        while end > range.lowerBound {
            let candidate = range.lowerBound..<end
            if let index = available.firstIndex(where: { equalIgnoringCase($0, bytes, candidate) }) { return index }
            var dash = end - 1
            while dash > range.lowerBound && bytes[dash] != hyphen { dash -= 1 }
            guard dash > range.lowerBound || bytes[dash] == hyphen else { return nil }
            end = dash
            var last = end - 1
            while last >= range.lowerBound && bytes[last] != hyphen { last -= 1 }
            if last >= range.lowerBound && end - last == 2 { end = last }
        }
        return nil
    }

    private static func equalIgnoringCase(_ tag: String, _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard tag.utf8.count == range.count else { return false }
        var i = range.lowerBound
        for byte in tag.utf8 {
            guard lower(byte) == lower(bytes[i]) else { return false }
            i += 1
        }
        return true
    }

    private static func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    /// `start..<end` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Range<Int> {
        var lower = start, upper = end
        while lower < upper && (bytes[lower] == space || bytes[lower] == tab) { lower += 1 }
        while upper > lower && (bytes[upper - 1] == space || bytes[upper - 1] == tab) { upper -= 1 }
        return lower..<upper
    }

    private static let comma = UInt8(ascii: ","), semicolon = UInt8(ascii: ";"), equals = UInt8(ascii: "=")
    private static let hyphen = UInt8(ascii: "-"), star = UInt8(ascii: "*"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
}
