extension RecordChange {
    /// The id this change writes and, for an upsert, the record; `nil` for an upsert whose
    /// value is not an object with a string `id` (such writes are ignored).
    var written: (id: String, record: JSONObject?)? {
        switch self {
        case .upsert(let v):
            guard case .object(let o) = v, case .string(let id)? = o["id"] else { return nil }
            return (id, o)
        case .delete(let id):
            return (id, nil)
        }
    }
}

/// How one write moves the row that owns an id: the old owner's row leaves its section and the
/// new owner's row enters one (either may be absent). Holds both rows strongly until they are
/// placed (the id index holds a single claim's row unretained).
struct OwnerChange {
    /// The old owner, whose row leaves its section.
    let leaving: Claim?
    /// The new owner, whose row enters its section.
    let entering: Claim?
}

extension ListSnapshot {
    /// Resolves a write of `id` in `collection` (`record`, or `nil` for a delete) against the id
    /// index — the one place both the single-write and the bulk path do it.
    ///
    /// The id's claims become its claims by specs of other collections, kept as they are, plus
    /// one per spec of `collection` (`specs`) whose filter the record matches, ordered by spec
    /// index: the lowest owns the id, the others are counted duplicates. Updates the index and
    /// ``duplicateRowCount``, and returns how the owning row moves; `nil` when no row moves (no
    /// claim before nor after, or the same row still owns the id).
    mutating func resolveWrite(id: String, record: JSONObject?, collection: String, specs: [Int],
                               factory: inout RowFactory) -> OwnerChange? {
        let old = index[id]
        var claims: [Claim] = []
        if let old {
            for c in old.claims where definition.bindings[c.spec]?.source != collection { claims.append(c) }
        }
        if let record {
            for s in specs {
                let b = definition.bindings[s]!
                if b.matches(record) { claims.append(Claim(spec: s, row: factory.dataRow(binding: b, record: record, id: id))) }
            }
            if claims.count > 1 { claims.sort { $0.spec < $1.spec } }
        }
        if old == nil && claims.isEmpty { return nil }
        duplicateRowCount += max(0, claims.count - 1) - max(0, (old?.count ?? 0) - 1)
        let change = OwnerChange(leaving: old?.owner, entering: claims.first)
        index.set(id, IdEntry(claims))
        if let o = change.leaving, let n = change.entering, o.row === n.row { return nil }
        return change
    }
}
