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

    /// Notes what the patch merged into.
    func merged(into record: IncomingRecord) { state.withLock { $0 = .merged(record) } }

    /// Notes that the record does not exist.
    func refuseMissing() { state.withLock { $0 = .missing } }
}

extension ViewModelStore {
    /// `writes` with the patches replaced by upserts of their merged records, merged over the
    /// records as `latest` (the commit's earlier writes, `nil` for a delete) or `lookup` (the
    /// committed records) has them; `latest` then holds this group's writes too. Returns the ids
    /// of patched records that do not exist instead, leaving `latest` alone.
    ///
    /// The patches of one record that follow one another (no other write of it between) are
    /// merged together and written once, as one upsert where the first of them was: a batch of
    /// thousands of patches of one large record made a whole record of each (10,000 empty
    /// patches of a 1 MB record: gigabytes, the writer held for minutes), and merging them one
    /// by one still went through the whole record for each (70 s). The writes returned are then
    /// fewer than `writes`. Each of those patches reports the record after the last.
    func resolvePatches(_ writes: [Write], latest: inout [WriteCondition.Key: IncomingRecord?],
                        lookup: RecordLookup) throws(StoreError) -> Result<[Write], Missing> {
        guard writes.contains(where: \.isPatch) else {
            for write in writes { latest[write.key] = .some(write.upserted) }
            return .success(writes)
        }
        /// A record's patches in a row, merged into `base` together at the end (MergePatch's
        /// apply of several patches), to be written at `slot`.
        struct Run {
            let base: JSONObject
            var patches: [RecordPatch]
            let slot: Int
        }
        var group = latest
        var resolved: [Write?] = []
        var runs: [WriteCondition.Key: Run] = [:]
        var missing: [String] = []
        resolved.reserveCapacity(writes.count)
        func finish(_ key: WriteCondition.Key) {
            guard let run = runs.removeValue(forKey: key) else { return }
            let record = IncomingRecord(id: key.id, object: MergePatch.apply(run.patches.map(\.changes), to: run.base))
            for patch in run.patches { patch.merged(into: record) }
            group[key] = .some(record)
            resolved[run.slot] = .upsert(collection: key.collection, record: record)
        }
        for write in writes {
            let key = write.key
            guard case .patch(let patch) = write else {
                finish(key)
                group[key] = .some(write.upserted)
                resolved.append(write)
                continue
            }
            if runs[key] != nil {
                runs[key]!.patches.append(patch)
                continue
            }
            let base: JSONObject?
            if let earlier = group[key] {
                base = earlier?.object
            } else {
                base = try lookup(patch.collection, patch.id).flatMap { try? JSONParser.parse($0.json).objectValue }
            }
            guard let base else {
                patch.refuseMissing()
                missing.append(patch.id)
                continue
            }
            runs[key] = Run(base: base, patches: [patch], slot: resolved.count)
            resolved.append(nil)
        }
        guard missing.isEmpty else { return .failure(Missing(ids: missing)) }
        for key in Array(runs.keys) { finish(key) }
        latest = group
        return .success(resolved.map { $0! })
    }

    /// Records a group patches that do not exist.
    struct Missing: Error {
        let ids: [String]
    }
}
