/// Why a byte sequence is not acceptable JSON, and where (0-based byte offset).
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A human-readable reason, e.g. `invalid UTF-8` or `nesting deeper than 64`.
    public let message: String
    /// The byte offset in the input where the problem was found.
    public let offset: Int

    /// A parse error at byte `offset`.
    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    /// `<message> at byte <offset>`.
    public var description: String { "\(message) at byte \(offset)" }
}
