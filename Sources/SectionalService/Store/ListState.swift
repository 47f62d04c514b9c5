import ListModel
import Locking

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
    /// partition's. While resident, a partition's, language's or result's count against
    /// `scopes.maxResidentRows` too (``MaterializationCache/answers``).
    let answers: AnswerCache
    /// The fingerprint of the definition's default view and this state's entity tag through it,
    /// computed once per state rather than on every read (most reads name no view; the default
    /// view's fingerprint sorts its hidden keys).
    let defaultViewFingerprint: UInt64
    let defaultViewEntityTag: String
    /// The fingerprint of the definition as served in its first language, which this state's
    /// is in another language: page tokens are bound to it and the language, so a token of any
    /// language is recognised by the first language's fingerprint once the definition changed
    /// (``ListCatalog/retire(_:_:)`` keeps those only, and a start knows only that one).
    let servedFingerprint: UInt64
    /// What this state's page tokens are bound to but for the view (``pageBindingList(definition:)``
    /// for its definition), made once per state rather than on every page rendered.
    let pageBindingList: String
    /// For a whole list's state: the results of its searches as served at its version, each
    /// keyed by (and holding) the resident state it was made from (see ``serving(_:)``).
    private let searchResults = Locked<[ObjectIdentifier: (resident: ListState, served: ListState)]>([:])

    /// `served`: the fingerprint of the definition in its first language, when `snapshot` is in
    /// another (``servedFingerprint``).
    init(snapshot: ListSnapshot, version: Int64, partition: PartitionKey? = nil, language: String? = nil, query: ListQuery? = nil,
         served: UInt64? = nil) {
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
        servedFingerprint = served ?? snapshot.definition.fingerprint
        pageBindingList = Self.pageBindingList(name: name, definition: servedFingerprint, language: language, partition: partition, query: query)
    }

    /// What a page token of this list (its language, partition and search) was bound to, but for
    /// the view, under the definition whose first language's fingerprint is `fingerprint`.
    func pageBindingList(definition fingerprint: UInt64) -> String {
        Self.pageBindingList(name: name, definition: fingerprint, language: language, partition: partition, query: query)
    }

    private static func pageBindingList(name: String, definition fingerprint: UInt64, language: String?, partition: PartitionKey?,
                                        query: ListQuery?) -> String {
        var list = "\(name)\u{1F}\(String(fingerprint, radix: 16))"
        if let language { list += "\u{1F}@\(language)" }
        if let partition { list += "\u{1F}\(partition.text)" }
        if let query { list += "\u{1F}?\(query.canonical)" }
        return list
    }

    public var definition: ListDefinition { snapshot.definition }

    /// Which materialization this is.
    var key: MaterializationKey { MaterializationKey(list: name, partition: partition, language: language, query: query) }

    /// A search result of this whole list (`resident`, as its cache entry holds it) served at
    /// this list's version. A write that neither adds nor removes nor changes a row of a result
    /// leaves its entry as it was (a write into a list with many resident searches does not make
    /// a state for each), so its entry may be older than the list: its rows are the same at this
    /// version, served by a state of this version made on the first read and kept with this
    /// state, so every read at this version gets the same one (its rendered answers with it) and
    /// it lives as long as the table that holds this state.
    func serving(_ resident: ListState) -> ListState {
        guard resident.version < version else { return resident }
        return searchResults.withLock { served in
            if let found = served[ObjectIdentifier(resident)] { return found.served }
            let state = resident.next(resident.snapshot, version: version)
            served[ObjectIdentifier(resident)] = (resident, state)
            return state
        }
    }

    /// The same list at the next version, its answers counted where this state's are (a
    /// resident partition's in the budget's ``AnswerTally``).
    func next(_ snapshot: ListSnapshot, version: Int64) -> ListState {
        let state = ListState(snapshot: snapshot, version: version, partition: partition, language: language, query: query,
                              served: servedFingerprint)
        if let tally = answers.tally { state.answers.count(in: tally) }
        return state
    }
}
