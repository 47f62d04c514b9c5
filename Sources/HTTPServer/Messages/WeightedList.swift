/// A header field that lists items with weights — `Accept-Encoding`, `Accept-Language` (RFC 9110
/// §12.4.2) — read over its bytes: it is on every read that negotiates, so it allocates nothing.
///
/// Items are split at `,` (empty ones dropped); an item's value is what comes before its first
/// `;`, without spaces and tabs (an item without one is skipped). Of its parameters, a `q` (any
/// case) sets the weight, the last one winning; a weight that is not a number from 0 to 1 is 0
/// (`q=2`, `q=inf` weighed more than every lawful weight, so one item outranked them all); an item
/// without one weighs 1. A parameter is `name=value` split once at `=` with empty pieces dropped:
/// leading `=`s are skipped, the value is all after the next `=`.
public enum WeightedList {
    /// Calls `body` with each item's value (a range of `bytes`) and weight, in order.
    public static func forEach(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>, Double) -> Void) {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != comma { end += 1 }
            if let (value, weight) = item(bytes, start, end) { body(value, weight) }
            start = end + 1
        }
    }

    /// Whether `range` of `bytes` spells `text`, without regard to ASCII case.
    public static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ text: String) -> Bool {
        guard text.utf8.count == range.count else { return false }
        // Over the text's contiguous bytes, which literals and native strings have: the generic
        // walk of a `UTF8View` cost 250 instructions a request to tell a `Host` field (callgrind).
        if let equal = text.utf8.withContiguousStorageIfAvailable({ t in
            !t.indices.contains { lower(t[$0]) != lower(bytes[range.lowerBound + $0]) }
        }) { return equal }
        var i = range.lowerBound
        for byte in text.utf8 {
            guard lower(byte) == lower(bytes[i]) else { return false }
            i += 1
        }
        return true
    }

    /// An item's value (nil when it has none) and weight.
    private static func item(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (Range<Int>, Double)? {
        var cut = start
        while cut < end && bytes[cut] != semicolon { cut += 1 }
        let value = trimmed(bytes, start, cut)
        guard !value.isEmpty else { return nil }
        var weight = 1.0
        var parameter = cut + 1
        while parameter <= end {
            var next = parameter
            while next < end && bytes[next] != semicolon { next += 1 }
            if let q = quality(bytes, parameter, next) { weight = q }
            parameter = next + 1
        }
        return (value, weight)
    }

    /// The weight a parameter sets, nil when it is not `q=…`.
    private static func quality(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        var nameStart = start
        while nameStart < end && bytes[nameStart] == equals { nameStart += 1 }
        var equal = nameStart
        while equal < end && bytes[equal] != equals { equal += 1 }
        guard equal < end, equal + 1 < end else { return nil }
        let name = trimmed(bytes, nameStart, equal)
        guard name.count == 1, bytes[name.lowerBound] | 0x20 == UInt8(ascii: "q") else { return nil }
        let value = trimmed(bytes, equal + 1, end)
        // Anything but the usual form as Swift reads a number (`1e-1`, `+.5`, `nan`); short
        // values make an inline string, no allocation.
        let weight = qvalue(bytes, value) ?? Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self)) ?? 0
        return (0...1).contains(weight) ? weight : 0
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

    private static func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    /// `start..<end` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Range<Int> {
        var lower = start, upper = end
        while lower < upper && (bytes[lower] == space || bytes[lower] == tab) { lower += 1 }
        while upper > lower && (bytes[upper - 1] == space || bytes[upper - 1] == tab) { upper -= 1 }
        return lower..<upper
    }

    private static let comma = UInt8(ascii: ","), semicolon = UInt8(ascii: ";"), equals = UInt8(ascii: "=")
    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
}
