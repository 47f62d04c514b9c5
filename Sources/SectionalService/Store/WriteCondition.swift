import ListStore

/// What a write expects of its record before it runs: HTTP `If-Match` / `If-None-Match` on a
/// record, or a batch's `expectedVersions`. Checked by the store inside the commit, while no
/// other write — of this process or, on PostgreSQL, of any instance — can come between.
public struct WriteCondition: Sendable, Equatable {
    public enum Expectation: Sendable, Equatable {
        /// The record exists (`If-Match: *`).
        case exists
        /// The record does not exist (`If-None-Match: *`).
        case absent
        /// The record exists at one of these versions (`If-Match: "17"`).
        case version([Int64])
        /// The record does not exist at any of these versions (`If-None-Match: "17"`).
        case notVersion([Int64])
    }

    public let collection: String
    public let id: String
    public let expectation: Expectation

    public init(collection: String, id: String, expectation: Expectation) {
        self.collection = collection
        self.id = id
        self.expectation = expectation
    }

    struct Key: Hashable {
        let collection: String
        let id: String
    }
}

extension ViewModelStore.Write {
    var key: WriteCondition.Key {
        switch self {
        case .upsert(let collection, let record): WriteCondition.Key(collection: collection, id: record.id)
        case .delete(let collection, let id): WriteCondition.Key(collection: collection, id: id)
        case .patch(let patch): WriteCondition.Key(collection: patch.collection, id: patch.id)
        }
    }

    /// Whether the record exists after this write.
    var isUpsert: Bool {
        if case .delete = self { return false }
        return true
    }

    var isPatch: Bool {
        if case .patch = self { return true }
        return false
    }

    /// The record an upsert writes; nil for a delete (and a patch not yet merged).
    var upserted: IncomingRecord? {
        if case .upsert(_, let record) = self { return record }
        return nil
    }
}

extension ViewModelStore {
    /// Whether `condition` holds now: after the stored state, and the writes of groups accepted
    /// earlier in the same commit (`written`: exists after them; their versions are not known
    /// yet, so an expected version of such a record does not hold, and a refused one holds when
    /// it is no newer than the record's stored version).
    func holds(_ condition: WriteCondition, after written: [WriteCondition.Key: Bool], lookup: RecordLookup) throws(StoreError) -> Bool {
        let exists: Bool
        var version: Int64?
        if let pending = written[WriteCondition.Key(collection: condition.collection, id: condition.id)] {
            exists = pending
        } else {
            let stored = try lookup(condition.collection, condition.id)
            exists = stored != nil
            version = stored?.version
        }
        switch condition.expectation {
        case .exists: return exists
        case .absent: return !exists
        case .version(let expected): return exists && version.map(expected.contains) == true
        case .notVersion(let refused):
            guard exists else { return true }
            if let version { return !refused.contains(version) }
            // Written by an earlier group, at a version newer than any the record had (at most
            // its stored one): it is none of those; a refused version past them might be the new one.
            let before = try lookup(condition.collection, condition.id)?.version ?? 0
            return refused.allSatisfy { $0 <= before }
        }
    }
}
