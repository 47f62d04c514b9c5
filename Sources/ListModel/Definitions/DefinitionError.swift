/// One problem in a list definition, with the JSON path of the offending value
/// (e.g. `lists.contacts.sections[1].row.title`).
public struct DefinitionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// JSON path of the value (for a missing member: the path the member would have).
    public let path: String
    /// What is wrong.
    public let message: String

    /// A problem at `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}

/// Every problem found in the definitions (decoding never stops at the first one).
public struct DefinitionErrors: Error, Equatable, Sendable, CustomStringConvertible {
    /// The problems, in document order.
    public let errors: [DefinitionError]

    /// The problems found.
    public init(_ errors: [DefinitionError]) { self.errors = errors }

    /// One problem per line.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
