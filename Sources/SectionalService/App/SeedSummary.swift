import ListModel

/// What a seed file put into its collection: the records stored, and the ids the file holds
/// more than once (each such id is one record, its last in the file, as in a batch).
public struct SeedSummary: Sendable, Equatable {
    /// The collection seeded.
    public let collection: String
    /// The seed file's path.
    public let path: String
    /// The records stored: one per distinct id.
    public let records: Int
    /// The ids the file holds more than once, in the order they first appear.
    public let repeatedIDs: [String]

    /// The warning `sectional check` prints for this seed, or nil when it repeats no id.
    public var warning: String? {
        guard let first = repeatedIDs.first else { return nil }
        let others = repeatedIDs.count - 1
        let more = others == 0 ? "" : " and \(counted(others, "other id"))"
        return "\(path) repeats record id \"\(first)\"\(more); the last record of each id is kept"
    }
}
