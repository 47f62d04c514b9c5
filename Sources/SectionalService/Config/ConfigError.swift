/// One problem in the configuration, named by its JSON path (`lists.contacts.sections[1].row.title`).
public struct ConfigIssue: Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Every problem found in a configuration; loading reports them all, not just the first.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public let issues: [ConfigIssue]

    public init(_ issues: [ConfigIssue]) { self.issues = issues }

    public init(path: String, _ message: String) { self.issues = [ConfigIssue(path: path, message: message)] }

    public var description: String { issues.map(\.description).joined(separator: "\n") }
}
