/// Why a template (or one of its formatters) is invalid.
public struct TemplateError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
