/// One record write in a collection.
public enum RecordChange: Sendable {
    /// Insert or replace a record (a JSON object with a string `"id"`).
    case upsert(JSONValue)
    /// Delete the record with this id.
    case delete(id: String)
}

extension ListSnapshot {
    /// The snapshot after one record write in `collection`; equal to a fresh
    /// ``build(definition:records:)`` over the changed records. Lists that do not read
    /// `collection` come back unchanged. Costs O(log n + chunk + shard + sections).
    public func applying(_ change: RecordChange, collection: String) -> ListSnapshot {
        var copy = self
        copy.apply(change, collection: collection)
        return copy
    }

    /// The snapshot after several writes in `collection`, applied in order (see
    /// ``apply(_:collection:parallelism:)``: a large batch is applied in one pass).
    public func applying(_ changes: [RecordChange], collection: String) -> ListSnapshot {
        var copy = self
        copy.apply(changes, collection: collection)
        return copy
    }

    /// Applies one record write in place (see ``applying(_:collection:)``).
    public mutating func apply(_ change: RecordChange, collection: String) {
        guard let specs = definition.specsBySource[collection], let (id, record) = change.written else { return }
        var factory = RowFactory()
        guard let move = resolveWrite(id: id, record: record, collection: collection, specs: specs, factory: &factory) else { return }
        place(move)
    }

    /// Moves the owning row as the write resolved: rows, sections, counters.
    private mutating func place(_ move: OwnerChange) {
        var sectionsChanged = false
        if let o = move.leaving, let n = move.entering, o.spec == n.spec,
           codePointEqual(rawKey(of: o), rawKey(of: n)),
           definition.orders[o.spec].compare(o.row.sortKey, o.row.id, n.row.sortKey, n.row.id) == 0 {
            // Same place: replace the row in its chunk.
            let (si, found) = sectionLowerBound(spec: o.spec, rawKey: rawKey(of: o))
            if found, let ri = sections[si].rows.index(ofRow: o.row, order: definition.orders[o.spec]) {
                sections[si].rows.replace(at: ri, with: n.row)
            } else {
                assertionFailure("row of \(o.row.id) not where its claim says")
            }
        } else {
            if let o = move.leaving { sectionsChanged = removeRow(o) || sectionsChanged }
            if let n = move.entering { sectionsChanged = insertRow(n) || sectionsChanged }
        }
        if sectionsChanged { recomputeKeys() }
        recomputeStarts()
    }

    /// Removes a claim's row; returns `true` when its section disappeared.
    private mutating func removeRow(_ c: Claim) -> Bool {
        let key = rawKey(of: c)
        let (si, found) = sectionLowerBound(spec: c.spec, rawKey: key)
        guard found, let ri = sections[si].rows.index(ofRow: c.row, order: definition.orders[c.spec]) else {
            assertionFailure("row of \(c.row.id) not found")
            return false
        }
        sections[si].rows.remove(at: ri)
        if sections[si].rows.isEmpty && vanishesWhenEmpty(c.spec) {
            sections.remove(at: si)
            return true
        }
        return false
    }

    /// Inserts a claim's row; returns `true` when a section was created for it.
    private mutating func insertRow(_ c: Claim) -> Bool {
        let key = rawKey(of: c)
        let (si, found) = sectionLowerBound(spec: c.spec, rawKey: key)
        if found {
            sections[si].rows.insert(c.row, order: definition.orders[c.spec])
            return false
        }
        var rows = RowSequence()
        rows.insert(c.row, order: definition.orders[c.spec])
        sections.insert(SectionNode(spec: c.spec, rawKey: key, key: key, rows: rows), at: si)
        return true
    }
}
