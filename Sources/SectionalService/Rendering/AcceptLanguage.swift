import HTTPServer

/// The choice of a language by `Accept-Language` (RFC 9110 §12.5.4), read byte by byte
/// (``WeightedList``): on every read of a list in several languages, so it allocates nothing and
/// needs no Foundation.
enum AcceptLanguage {
    /// The language to answer in: RFC 4647 §3.4 lookup of the header's ranges (by weight, ties in
    /// the order given, `q=0` excluded) among `available`; the first of `available` when nothing
    /// matches, `*` included.
    ///
    /// Items and weights as ``WeightedList`` reads them. Ranges compare without regard to ASCII
    /// case; a range with other bytes matches no language tag.
    static func choose(_ header: String?, among available: [String]) -> String {
        guard let first = available.first else { return "en" }
        guard available.count > 1, var header, !header.isEmpty else { return first }
        let chosen = header.withUTF8 { bytes in best(in: bytes, among: available) }
        return chosen.map { available[$0] } ?? first
    }

    /// The index in `available` of the language the best-weighted matching range picks.
    private static func best(in bytes: UnsafeBufferPointer<UInt8>, among available: [String]) -> Int? {
        var best: (weight: Double, index: Int)? = nil
        WeightedList.forEach(in: bytes) { range, weight in
            guard weight > 0, best.map({ weight > $0.weight }) ?? true, !(range.count == 1 && bytes[range.lowerBound] == star),
                  let index = lookup(bytes, range, among: available) else { return }
            best = (weight, index)
        }
        return best?.index
    }

    /// RFC 4647 lookup of one range: the range, then shorter by a subtag at a time (a
    /// single-letter subtag goes with the one before it).
    private static func lookup(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, among available: [String]) -> Int? {
        var end = range.upperBound
        while end > range.lowerBound {
            let candidate = range.lowerBound..<end
            if let index = available.firstIndex(where: { WeightedList.equalsIgnoringCase(bytes, candidate, $0) }) { return index }
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

    private static let hyphen = UInt8(ascii: "-"), star = UInt8(ascii: "*")
}
