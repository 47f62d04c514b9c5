/// What a materialization held under `scopes.maxResidentRows` is, for `/metrics`: a user's
/// partition of a per-user list, a list's (or partition's) rows in another language, or a search
/// (or filter) result. A search of a partition in another language is a search result.
enum ResidentKind: Int, CaseIterable, Sendable {
    case partition, language, search

    init(_ key: MaterializationKey) {
        self = key.query != nil ? .search : key.language != nil ? .language : .partition
    }

    /// The value of the `kind` label.
    var label: String {
        switch self {
        case .partition: "partition"
        case .language: "language"
        case .search: "search"
        }
    }
}

/// One kind's materializations in memory, their rows, and how many were evicted since start.
struct ResidentCounts: Sendable {
    var entries = 0
    var rows = 0
    var evictions: UInt64 = 0

    /// Counts `entry` more entries (or fewer, when negative) and `rows` more rows.
    mutating func add(entry: Int, rows: Int) {
        entries += entry
        self.rows += rows
    }
}
