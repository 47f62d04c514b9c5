import ListModel

/// One list (or one user's partition of a per-user list) as it is served at one version: an
/// immutable snapshot that readers hold while the writer publishes the next.
public final class ListState: Sendable {
    public let name: String
    public let snapshot: ListSnapshot
    /// The number of the last store change that touched what this list (or partition) shows.
    public let version: Int64
    /// The user's partition this state shows; nil for a list that is the same for everyone.
    public let partition: PartitionKey?
    /// The language this state is in when it is not the list's first (a language's rows,
    /// materialized like a partition); nil for the first.
    public let language: String?
    /// The search and filters whose result this is (materialized like a partition); nil for
    /// the whole list.
    let query: ListQuery?
    /// ``ListQuery/fingerprint`` of ``query`` (for entity tags), computed once per state rather
    /// than on every read.
    let queryFingerprint: UInt64?
    /// Answers rendered from this snapshot (it never changes, so neither do they): a list's, in
    /// any of its languages, may hold a list's budget; a user's partition or a query's result a
    /// partition's.
    let answers: AnswerCache
    /// The fingerprint of the definition's default view and this state's entity tag through it,
    /// computed once per state rather than on every read (most reads name no view; the default
    /// view's fingerprint sorts its hidden keys).
    let defaultViewFingerprint: UInt64
    let defaultViewEntityTag: String

    init(snapshot: ListSnapshot, version: Int64, partition: PartitionKey? = nil, language: String? = nil, query: ListQuery? = nil) {
        self.name = snapshot.definition.name
        self.snapshot = snapshot
        self.version = version
        self.partition = partition
        self.language = language
        self.query = query
        queryFingerprint = query?.fingerprint
        answers = AnswerCache(budget: partition == nil && query == nil ? AnswerCache.listBudget : AnswerCache.partitionBudget)
        defaultViewFingerprint = snapshot.definition.defaultViewFingerprint
        defaultViewEntityTag = EntityTag.of(version: version, definition: snapshot.definition.fingerprint, view: defaultViewFingerprint,
                                            partition: partition?.fingerprint, query: queryFingerprint)
    }

    public var definition: ListDefinition { snapshot.definition }

    /// Which materialization this is.
    var key: MaterializationKey { MaterializationKey(list: name, partition: partition, language: language, query: query) }

    /// The same list at the next version.
    func next(_ snapshot: ListSnapshot, version: Int64) -> ListState {
        ListState(snapshot: snapshot, version: version, partition: partition, language: language, query: query)
    }
}
