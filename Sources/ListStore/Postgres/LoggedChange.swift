/// One write of the change log: the record a commit wrote, with its JSON after the write (nil
/// when the commit deleted it). A commit's writes share its `sequence`, in the order they were made.
public struct LoggedChange: Sendable, Equatable {
    public let sequence: Int64
    public let collection: String
    public let id: String
    /// The record's JSON after the write; nil for a delete. For a definition change, the
    /// definition stored (nil: removed, or logged by an earlier release).
    public let json: [UInt8]?
    /// The record's JSON before the write, kept for the collections per-user lists read (nil
    /// when it did not exist, or is not kept).
    public let previous: [UInt8]?

    public init(sequence: Int64, collection: String, id: String, json: [UInt8]?, previous: [UInt8]? = nil) {
        self.sequence = sequence
        self.collection = collection
        self.id = id
        self.json = json
        self.previous = previous
    }

    /// Whether this is a change of a view (its ``id``), not of a record.
    public var isView: Bool { collection == PostgresSchema.viewsLog }

    /// Whether this is a change of a run-time definition (its ``id`` names the list; empty: a
    /// config file re-read, which each instance does for itself).
    public var isDefinition: Bool { collection == PostgresSchema.definitionsLog }
}

/// A store whose commits other processes make too, and which logs them in order for every
/// process to follow (PostgreSQL).
public protocol ChangeLog: Sendable {
    /// The logged writes after `sequence`, whole commits in version order (see
    /// ``PostgresStore/changes(after:limit:)``).
    func changes(after sequence: Int64, limit: Int) throws(StoreError) -> [LoggedChange]
    /// The lowest version the log still holds, or nil when it is empty.
    func oldestLoggedChange() throws(StoreError) -> Int64?
}
