/// The next version of a list in the making: the latest snapshot of a ``ListChangeLog`` with
/// record writes applied, and the ids those writes touched.
///
/// The ids are recorded here, from the writes themselves, because a batch update is only right
/// when it is given every id written between its two versions (see
/// ``ListSnapshot/changes(from:changedRowIDs:view:maxChanges:)``): a caller that applies writes
/// through an edit cannot forget one. Made by ``ListChangeLog/edit()``; finished by
/// ``ListChangeLog/append(version:_:)``.
public struct ListEdit: Sendable {
    /// The version the edit starts from (the log's latest when the edit was made).
    public let baseVersion: Int64
    /// The snapshot with the writes applied so far.
    public private(set) var snapshot: ListSnapshot
    /// Ids of the writes applied in collections the list reads (in order; may repeat).
    private(set) var writtenRowIDs: [String] = []

    init(base: ListSnapshot, version: Int64) {
        baseVersion = version
        snapshot = base
    }

    /// Applies writes in `collection`, in order (see ``ListSnapshot/apply(_:collection:parallelism:)``;
    /// `parallelism` runs a large batch's independent parts at once), and records the ids they
    /// write. Writes in a collection the list does not read change nothing and record nothing.
    public mutating func apply(_ changes: [RecordChange], collection: String, parallelism: Parallelism = .serial) {
        guard snapshot.definition.reads(collection: collection) else { return }
        snapshot.apply(changes, collection: collection, parallelism: parallelism)
        for change in changes {
            if let (id, _) = change.written { writtenRowIDs.append(id) }
        }
    }

    /// Applies one write in `collection` (see ``apply(_:collection:parallelism:)``).
    public mutating func apply(_ change: RecordChange, collection: String) { apply([change], collection: collection) }
}
