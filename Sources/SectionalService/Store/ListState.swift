import ListModel

/// One list as it is served at one version: an immutable snapshot that readers hold while the
/// writer publishes the next.
public final class ListState: Sendable {
    public let name: String
    public let snapshot: ListSnapshot
    /// The number of the last store change that touched one of the list's sources.
    public let version: Int64
    /// Answers rendered from this snapshot (it never changes, so neither do they).
    let answers = AnswerCache()

    init(snapshot: ListSnapshot, version: Int64) {
        self.name = snapshot.definition.name
        self.snapshot = snapshot
        self.version = version
    }

    public var definition: ListDefinition { snapshot.definition }
}
