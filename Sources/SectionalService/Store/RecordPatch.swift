import ListModel
import ListStore
import Locking

/// A JSON Merge Patch (RFC 7396) of one record, merged inside the commit — while no other writer,
/// of any instance, can commit — into the record as it is then (committed, or as an earlier
/// write of the same commit leaves it), so concurrent patches of one record never lose one
/// another's changes and never retry.
public final class RecordPatch: Sendable {
    public let collection: String
    public let id: String
    public let changes: JSONObject
    /// What became of the patch: not merged yet (or its group was refused for a condition),
    /// merged into this record, or refused because the record does not exist.
    public enum Outcome: Sendable {
        case pending
        case merged(IncomingRecord)
        case missing
    }

    private let state = Locked<Outcome>(.pending)

    public init(collection: String, id: String, changes: JSONObject) {
        self.collection = collection
        self.id = id
        self.changes = changes
    }

    /// What became of the patch (read it once the commit has answered).
    public var outcome: Outcome { state.withLock { $0 } }

    /// The record `base` with the changes applied (remembered in ``outcome``).
    func merge(into base: JSONObject) -> IncomingRecord {
        let record = IncomingRecord(id: id, object: MergePatch.apply(changes, to: base))
        state.withLock { $0 = .merged(record) }
        return record
    }

    /// Notes that the record does not exist.
    func refuseMissing() { state.withLock { $0 = .missing } }
}

extension ViewModelStore {
    /// `writes` with every patch replaced by the upsert of its merged record, merged over the
    /// records as `latest` (the commit's earlier writes, `nil` for a delete) or `lookup` (the
    /// committed records) has them; `latest` then holds this group's writes too. Returns the ids
    /// of patched records that do not exist instead, leaving `latest` alone.
    func resolvePatches(_ writes: [Write], latest: inout [WriteCondition.Key: IncomingRecord?],
                        lookup: RecordLookup) throws(StoreError) -> Result<[Write], Missing> {
        guard writes.contains(where: \.isPatch) else {
            for write in writes { latest[write.key] = .some(write.upserted) }
            return .success(writes)
        }
        var group = latest
        var resolved: [Write] = []
        var missing: [String] = []
        resolved.reserveCapacity(writes.count)
        for write in writes {
            guard case .patch(let patch) = write else {
                group[write.key] = .some(write.upserted)
                resolved.append(write)
                continue
            }
            let base: JSONObject?
            if let earlier = group[write.key] {
                base = earlier?.object
            } else {
                base = try lookup(patch.collection, patch.id).flatMap { try? JSONParser.parse($0.json).objectValue }
            }
            guard let base else {
                patch.refuseMissing()
                missing.append(patch.id)
                continue
            }
            let record = patch.merge(into: base)
            group[write.key] = .some(record)
            resolved.append(.upsert(collection: patch.collection, record: record))
        }
        guard missing.isEmpty else { return .failure(Missing(ids: missing)) }
        latest = group
        return .success(resolved)
    }

    /// Records a group patches that do not exist.
    struct Missing: Error {
        let ids: [String]
    }
}
