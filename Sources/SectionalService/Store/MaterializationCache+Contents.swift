import ListModel
import Synchronization

/// What ``MaterializationCache``'s lock guards (``Contents``), and the records it keeps there:
/// the resident search results of each list or partition, and the histories the writer took.
extension MaterializationCache {
    /// What the writer's lock guards: the published table (and its shards being edited), the
    /// versions, epochs and query sets, and the counts.
    struct Contents {
        /// The table readers see.
        private(set) var table: ResidentTable
        /// The table's shards as the current change edits them (the same storage as `table`'s
        /// until a change touches a shard).
        private var shards: ResidentTable.Shards
        /// The whole lists' entries, as the current change edits them.
        private var wholeLists: ResidentTable.WholeLists = []
        private var changed = false
        /// The versions writes gave partitions, languages and search bases, while a build in
        /// progress may need them.
        var versions = WrittenVersions()
        /// Per list: the change number of its last definition change (a build begun before it
        /// is not installed).
        var epochs: [String: Int64] = [:]
        /// Per whole list (or partition, per language): its resident search results, each with
        /// its state as its entry holds it and the number of its install (a write looks at them
        /// all without a look-up per result).
        var queries: [MaterializationKey: [MaterializationKey: ResidentQuery]] = [:]
        /// Installs of search results so far (numbers them).
        var queryInstalls: UInt64 = 0
        /// Per whole list (or partition, per language): ``queryInstalls`` when the writer first
        /// looked at its search results (``MaterializationCache/queries(of:)``) since it last
        /// published: a result installed after that was not moved by the writer.
        var queriesLooked: [MaterializationKey: UInt64] = [:]
        /// Per partition, language or search result: the history the writer took to edit it
        /// (``MaterializationCache/historyToEdit(_:)``) since it last published; `publish` moves only
        /// the entry that holds that history.
        var historiesLent: [MaterializationKey: LentHistory] = [:]
        var residentRows = 0
        var residentPartitions = 0
        /// The entries, rows and evictions above, by kind (indexed by ``ResidentKind/rawValue``).
        var byKind = [ResidentCounts](repeating: ResidentCounts(), count: ResidentKind.allCases.count)

        /// What the resident partitions and results count against the budget besides their
        /// answers (``AnswerTally``): their rows, and ``MaterializationCache/rowsPerEntry`` each
        /// for the rest of it.
        var chargedRows: Int { residentRows + residentPartitions * MaterializationCache.rowsPerEntry }

        init() {
            shards = ResidentTable.empty
            table = ResidentTable(generation: MaterializationCache.nextGeneration(), shards: shards, wholeLists: [])
        }

        subscript(key: MaterializationKey) -> Entry? {
            get { shards[ResidentTable.shard(of: key)][key] }
            set {
                shards[ResidentTable.shard(of: key)][key] = newValue
                if key.isWholeList {
                    wholeLists.removeAll { $0.name == key.list }
                    if let newValue { wholeLists.append((name: key.list, entry: newValue)) }
                }
                changed = true
            }
        }

        /// Every entry as the current change left it.
        var entries: FlattenSequence<ResidentTable.Shards> { shards.joined() }

        /// Publishes the change, if it changed any entry: a new table with a new generation.
        mutating func publishTable(to published: borrowing Atomic<UInt64>) {
            guard changed else { return }
            changed = false
            table = ResidentTable(generation: MaterializationCache.nextGeneration(), shards: shards, wholeLists: wholeLists)
            _ = published.exchange(table.generation, ordering: .acquiringAndReleasing)
        }
    }

    /// Which history of an entry the writer took first since it last published. The history
    /// itself is held (until the publish), so it cannot be freed and another made at its address;
    /// and an entry that left never comes back, so one holding it at `publish` is the one the
    /// writer moved throughout.
    enum LentHistory {
        /// This one.
        case history(ListHistory)
        /// None: the entry was not there.
        case absent

        init(_ history: ListHistory?) { self = history.map { .history($0) } ?? .absent }

        /// Whether the entry holding `history` (nil: none) is the one the writer took.
        func isEntry(holding history: ListHistory?) -> Bool {
            switch (self, history) {
            case (.history(let lent), let history?): lent === history
            case (.absent, nil): true
            default: false
            }
        }
    }

    /// A resident search result as ``Contents/queries`` holds it.
    struct ResidentQuery {
        var state: ListState
        let install: UInt64
    }

    /// Generations of every cache's tables: numbers no two tables in the process share, so a
    /// thread's table from another cache (tests make many) never passes for this one's.
    private static let generations = Atomic<UInt64>(0)

    fileprivate static func nextGeneration() -> UInt64 { generations.wrappingAdd(1, ordering: .relaxed).newValue }
}
