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
        guard !text.isEmpty else { throw InvalidPageSize(text: text) }
        // Digit by digit (no `Int(String)`: a tenth of a warm first page's routing); the value
        // stops growing past a million, which clamps to the maximum like any larger one.
        var value = 0
        for byte in text.utf8 {
            guard byte >= 0x30 && byte <= 0x39 else { throw InvalidPageSize(text: text) }
            if value < 1_000_000 { value = value * 10 + Int(byte - 0x30) }
        }
        return resolve(value)
    }

    /// Clamps a non-negative integer size: 0 → 50, above 500 → 500.
    public static func resolve(_ size: Int) -> Int {
        size <= 0 ? defaultSize : min(size, maximum)
    }
}
