/// Text as PostgreSQL keeps it for a string that may hold U+0000, which `text` cannot: a user's
/// value (an escaped JSON string) names an outbox row's partition and a view's owner. A string
/// holding U+0000, or starting with U+0001 (the mark), is stored as the mark and the hex of its
/// UTF-8 bytes; every other string as it is — so every row stored before reads the same, and two
/// strings never share a stored form.
enum StoredText {
    private static let mark = "\u{1}"

    /// The text stored for `string`.
    static func encode(_ string: String) -> String {
        guard string.utf8.contains(0) || string.hasPrefix(mark) else { return string }
        let digits = Array("0123456789abcdef".utf8)
        return mark + String(decoding: string.utf8.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// The string `stored` stands for.
    static func decode(_ stored: String) -> String {
        guard stored.hasPrefix(mark) else { return stored }
        let hex = Array(stored.utf8.dropFirst())
        func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c &- 48 : c &- 87 }
        let bytes = stride(from: 0, to: hex.count - 1, by: 2).map { nibble(hex[$0]) << 4 | nibble(hex[$0 + 1]) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
