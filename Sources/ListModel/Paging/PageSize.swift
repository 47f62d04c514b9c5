/// `pageSize` rules of list pages (and of `count` in section ranges).
public enum PageSize {
    /// Used when no size (or 0) is asked for.
    public static let defaultSize = 50
    /// Larger requests are clamped to this.
    public static let maximum = 500

    /// Why a `pageSize` parameter was refused (`400 invalid-page-size`).
    public struct InvalidPageSize: Error, Equatable, Sendable {
        /// The refused parameter text.
        public let text: String
    }

    /// Resolves the query parameter: absent or `0` → 50, above 500 → 500; negative or not an
    /// integer (including `1.5`, `+3`, `""`) → ``InvalidPageSize``.
    public static func parse(_ text: String?) throws(InvalidPageSize) -> Int {
        guard let text else { return defaultSize }
        let u = text.utf8
        var digits = u[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw InvalidPageSize(text: text) }
        while digits.count > 1 && digits.first == 0x30 { digits = digits.dropFirst() }
        if digits.count > 6 { return maximum }
        return resolve(Int(String(decoding: digits, as: UTF8.self))!)
    }

    /// Clamps a non-negative integer size: 0 → 50, above 500 → 500.
    public static func resolve(_ size: Int) -> Int {
        size <= 0 ? defaultSize : min(size, maximum)
    }
}
