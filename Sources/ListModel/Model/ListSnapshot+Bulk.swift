extension ListSnapshot {
    /// Batches of at least this many writes take the bulk path (measured with
    /// `sectional-bench batch`: below it, one write at a time is as fast or faster).
    static let bulkThreshold = 32

    /// Applies several writes in `collection` in place, in order; the result equals applying
    /// them one by one with ``apply(_:collection:)`` (and a fresh build).
    ///
    /// Small batches go one write at a time. A larger batch is applied in one pass: the final
    /// state of each id (the last write wins; an upsert then a delete is a delete) is resolved
    /// once against the id index, the rows that leave and enter each section are collected and
    /// sorted, and each affected section is edited once — row by row in order, or by one merge
    /// over its chunk directory when the edits outnumber its chunks (see ``rowWise(edits:chunks:)``);
    /// section keys, counts, texts and offsets are recomputed once per batch. Costs
    /// O(k log k + k log n + touched chunks + sections) for k writes.
    ///
    /// `parallelism` runs the independent parts of a large batch at once: the rows made from
    /// the records, the id index's nodes (``IdIndex/update(_:parallelism:_:)``) and the sections
    /// edited. The result does not depend on it.
    public mutating func apply(_ changes: [RecordChange], collection: String, parallelism: Parallelism = .serial) {
        guard definition.specsBySource[collection] != nil else { return }
        if changes.count < ListSnapshot.bulkThreshold {
            for c in changes { apply(c, collection: collection) }
        } else {
            applyBulk(changes, collection: collection, parallelism: parallelism)
        }
    }

    /// Whether a section's edits are applied row by row (in order, on chunks copied once and
    /// then edited in place) rather than by one ``RowSequence/merge(removing:inserting:order:)``.
    /// Measured (`sectional-bench batch`, 2,500-record batches up to 1M rows): row by row is
    /// 2–3× faster while edits are not many times the chunk count — a merge retains every row
    /// of every chunk it rebuilds, and row by row paid that only once per touched chunk too
    /// (now less: a copied chunk borrows its rows, see ``RowChunk``), but without rebuilding tag
    /// sums and type lists; the merge wins only when a section is rewritten almost entirely.
    static func rowWise(edits: Int, chunks: Int) -> Bool { edits <= 8 * chunks }

    /// Applies one section's removals and insertions (in any order) to its rows: row by row, in
    /// order (each touched chunk copied once, then edited in place), each search starting where
    /// the one before ended; or by one merge (see ``rowWise(edits:chunks:)``).
    private static func edit(_ rows: inout RowSequence, removing removed: ContiguousArray<Row>,
                             inserting inserted: ContiguousArray<Row>, order: RowOrder) {
        var inserted = inserted, removed = removed
        RowSorter.sort(&inserted, order: order)
        RowSorter.sort(&removed, order: order)
        if rowWise(edits: removed.count + inserted.count, chunks: rows.chunkCount) {
            var at = 0
            for r in removed {
                if let i = rows.index(ofRow: r, order: order, from: at) {
                    rows.remove(at: i)
                    at = i
                } else { assertionFailure("row of \(r.id) not found") }
            }
            at = 0
            for r in inserted { at = rows.insert(r, order: order, from: at) + 1 }
        } else {
            var positions: [Int] = []
            positions.reserveCapacity(removed.count)
            for r in removed {
                if let i = rows.index(ofRow: r, order: order, from: positions.last.map { $0 + 1 } ?? 0) {
                    positions.append(i)
                } else { assertionFailure("row of \(r.id) not found") }
            }
            rows.merge(removing: positions, inserting: inserted, order: order)
        }
    }

    /// A section position: spec and raw key.
    private struct SectionPlace: Hashable {
        let spec: Int
        let key: CodePointKey
    }

    /// What a batch does to one section.
    private struct SectionEdit: Sendable {
        let spec: Int
        let rawKey: String
        var removed = ContiguousArray<Row>()
        var inserted = ContiguousArray<Row>()

        /// Rows removed and inserted.
        var size: Int { removed.count + inserted.count }
    }

    /// The one-pass path of ``apply(_:collection:parallelism:)`` (any batch size; exposed for tests).
    mutating func applyBulk(_ changes: [RecordChange], collection: String, parallelism: Parallelism = .serial) {
        guard let specs = definition.specsBySource[collection] else { return }

        // 1. The final state per id, in order of first appearance.
        var slot: [String: Int] = [:]
        slot.reserveCapacity(changes.count)
        var ids: [String] = []
        var records: [JSONObject?] = []
        ids.reserveCapacity(changes.count)
        records.reserveCapacity(changes.count)
        for change in changes {
            guard let (id, record) = change.written else { continue }
            if let i = slot[id] { records[i] = record } else {
                slot[id] = ids.count
                ids.append(id)
                records.append(record)
            }
        }

        // 2. Each id's new claims, made from its record, then resolved against the index (as
        //    for one write, ``resolveWrite(id:record:collection:specs:factory:)``); rows leaving
        //    and entering sections.
        let definition = self.definition, written = ids, objects = records
        let parallel = ids.count >= IdIndex.parallelUpdates
        let parts = parallel ? 8 : 1
        let made = parallelism.map(parts) { p -> [[Claim]] in
            var factory = RowFactory()
            return (written.count * p / parts..<written.count * (p + 1) / parts).map { i in
                Self.claims(of: objects[i], id: written[i], specs: specs, definition: definition, factory: &factory)
            }
        }.flatMap { $0 }
        let resolved = index.update(ids, parallelism: parallelism) { i, old -> (IdEntry?, Resolution) in
            let r = Self.resolve(old: old, made: made[i], collection: collection, definition: definition)
            return (r.entry, r)
        }
        var edits: [SectionEdit] = []
        var editOf: [SectionPlace: Int] = [:]
        func edit(_ c: Claim) -> Int {
            let key = rawKey(of: c)
            let place = SectionPlace(spec: c.spec, key: CodePointKey(key))
            if let e = editOf[place] { return e }
            editOf[place] = edits.count
            edits.append(SectionEdit(spec: c.spec, rawKey: key))
            return edits.count - 1
        }
        for r in resolved {
            duplicateRowCount += r.duplicates
            // `edits` holds the new rows until they sit in chunks.
            guard let move = r.change else { continue }
            if let o = move.leaving { edits[edit(o)].removed.append(o.row) }
            if let n = move.entering { edits[edit(n)].inserted.append(n.row) }
        }
        if edits.isEmpty { return }

        // 3. Each affected section edited, the largest first, each on its own part (sections
        //    share no chunks); new sections made; emptied groups noted.
        var created: [SectionNode] = []
        var present: [(index: Int, edit: SectionEdit)] = []
        for e in edits {
            let (si, found) = sectionLowerBound(spec: e.spec, rawKey: e.rawKey)
            if found {
                present.append((si, e))
                continue
            }
            assert(e.removed.isEmpty, "rows removed from a missing section")
            guard !e.inserted.isEmpty else { continue }
            var inserted = e.inserted
            RowSorter.sort(&inserted, order: definition.orders[e.spec])
            created.append(SectionNode(spec: e.spec, rawKey: e.rawKey, key: e.rawKey, rows: RowSequence(sorted: inserted)))
        }
        present.sort { $0.edit.size > $1.edit.size }
        // Taken out of the section list, so that each part holds its section's only reference.
        var taken: [RowSequence] = []
        taken.reserveCapacity(present.count)
        for p in present {
            taken.append(sections[p.index].rows)
            sections[p.index].rows = RowSequence()
        }
        let work = present, orders = definition.orders
        let edited = (parallel ? parallelism : .serial).map(taking: taken) { k, rows -> RowSequence in
            Self.edit(&rows, removing: work[k].edit.removed, inserting: work[k].edit.inserted, order: orders[work[k].edit.spec])
            return rows
        }
        var emptied = false
        for (k, p) in present.enumerated() {
            sections[p.index].rows = edited[k]
            if edited[k].isEmpty && vanishesWhenEmpty(p.edit.spec) { emptied = true }
        }

        // 4. Section list: drop emptied groups (and a search result's emptied data sections),
        //    merge in the new ones (in section order).
        if emptied || !created.isEmpty {
            if created.count > 1 {
                created.sort { a, b in
                    if a.spec != b.spec { return a.spec < b.spec }
                    return rankers[a.spec].compare(a.rawKey, b.rawKey) < 0
                }
            }
            var merged: [SectionNode] = []
            merged.reserveCapacity(sections.count + created.count)
            var j = 0
            for i in sections.indices {
                while j < created.count && compareSection(spec: created[j].spec, rawKey: created[j].rawKey, to: i) < 0 {
                    merged.append(created[j])
                    j += 1
                }
                if sections[i].rows.isEmpty && vanishesWhenEmpty(sections[i].spec) { continue }
                merged.append(sections[i])
            }
            while j < created.count { merged.append(created[j]); j += 1 }
            sections = merged
            recomputeKeys()
        }
        recomputeStarts()
    }
}
