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
struct OwnerChange: Sendable {
    /// The old owner, whose row leaves its section.
    let leaving: Claim?
    /// The new owner, whose row enters its section.
    let entering: Claim?
}

/// What one write makes of an id's entry in the id index (see ``ListSnapshot/resolve(old:made:collection:definition:)``).
struct Resolution: Sendable {
    /// The id's new entry (`nil`: no claim is left).
    let entry: IdEntry?
    /// How the owning row moves; `nil` when none does.
    let change: OwnerChange?
    /// The change in the list's count of duplicate claims.
    let duplicates: Int
}

extension ListSnapshot {
    /// Resolves a write of `id` in `collection` (`record`, or `nil` for a delete) against the id
    /// index — the single-write path; the bulk path makes the claims and resolves them in two
    /// passes over a batch (``claims(of:id:specs:definition:factory:)``, then
    /// ``resolve(old:made:collection:definition:)`` under ``IdIndex/update(_:parallelism:_:)``).
    /// Updates the index and ``duplicateRowCount``, and returns how the owning row moves.
    mutating func resolveWrite(id: String, record: JSONObject?, collection: String, specs: [Int],
                               factory: inout RowFactory) -> OwnerChange? {
        let old = index[id]
        let made = Self.claims(of: record, id: id, specs: specs, definition: definition, factory: &factory)
        if old == nil && made.isEmpty { return nil }
        let r = Self.resolve(old: old, made: made, collection: collection, definition: definition)
        duplicateRowCount += r.duplicates
        index.set(id, r.entry)
        return r.change
    }

    /// The claims `record` makes as a row of `id`: one per spec of its collection (`specs`)
    /// whose filter it matches, in spec order; none for a delete (`nil`). Reads nothing but the
    /// definition, so a batch's claims can be made on several threads.
    static func claims(of record: JSONObject?, id: String, specs: [Int], definition: ListDefinition,
                       factory: inout RowFactory) -> [Claim] {
        guard let record else { return [] }
        var made: [Claim] = []
        for s in specs {
            let b = definition.bindings[s]!
            if b.matches(record) { made.append(Claim(spec: s, row: factory.dataRow(binding: b, record: record, id: id))) }
        }
        return made
    }

    /// What a write in `collection` does to an id whose entry was `old`, given the claims the
    /// write made (`made`, in spec order). The id's claims become its claims by specs of other
    /// collections, kept as they are, plus `made`, ordered by spec index: the lowest owns the
    /// id, the others are counted duplicates. The change is `nil` when no row moves (no claim
    /// before nor after, or the same row still owns the id). Pure: the caller stores the entry.
    static func resolve(old: IdEntry?, made: [Claim], collection: String, definition: ListDefinition) -> Resolution {
        var claims: [Claim] = []
        if let old {
            for c in old.claims where definition.bindings[c.spec]?.source != collection { claims.append(c) }
        }
        claims.append(contentsOf: made)
        if claims.count > 1 { claims.sort { $0.spec < $1.spec } }
        let duplicates = max(0, claims.count - 1) - max(0, (old?.count ?? 0) - 1)
        var change: OwnerChange? = OwnerChange(leaving: old?.owner, entering: claims.first)
        if old == nil && claims.isEmpty { change = nil }
        if let o = change?.leaving, let n = change?.entering, o.row === n.row { change = nil }
        return Resolution(entry: IdEntry(claims), change: change, duplicates: duplicates)
    }
}
