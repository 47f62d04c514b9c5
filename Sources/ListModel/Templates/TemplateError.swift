/// Why a template (or one of its formatters) is invalid.
public struct TemplateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let message: String
    /// An error with this message.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
