/// One write of the change log: the record a commit wrote, with its JSON after the write (nil
/// when the commit deleted it). A commit's writes share its `sequence`, in the order they were made.
public struct LoggedChange: Sendable, Equatable {
    public let sequence: Int64
    public let collection: String
    public let id: String
    /// The record's JSON after the write; nil for a delete.
    public let json: [UInt8]?

    public init(sequence: Int64, collection: String, id: String, json: [UInt8]?) {
        self.sequence = sequence
        self.collection = collection
        self.id = id
        self.json = json
    }
}
