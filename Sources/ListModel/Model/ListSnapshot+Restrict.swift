extension ListSnapshot {
    /// The list as a fresh ``build(definition:records:)`` would make it from only some of this
    /// snapshot's records — `ids` per source collection — made from the rows this snapshot has
    /// already built: no record is parsed and no row rendered; each kept row is found through the
    /// id index, and each section's rows sorted again.
    ///
    /// `nil` when this snapshot has dropped duplicate rows: which claim owns an id then depends
    /// on which records are kept, and only a build says (the caller builds instead). Without
    /// duplicates every record has at most one row, and a subset of records keeps exactly its
    /// rows, literal rows and sections without groups as they are.
    ///
    /// Costs O(k log k) for k ids, plus O(sections).
    public func restricted(to ids: [String: [String]]) -> ListSnapshot? {
        guard duplicateRowCount == 0 else { return nil }
        let expected = ids.values.reduce(0) { $0 + $1.count }
        var grouped: [Place: ContiguousArray<Row>] = [:]
        for (collection, list) in ids {
            guard definition.specsBySource[collection] != nil else { continue }
            for id in list {
                // A row of this id from another collection's record (or a literal row) is not this record's.
                guard let entry = index[id], case .one(let spec, let unmanaged) = entry,
                      definition.bindings[spec]?.source == collection else { continue }
                let row = unmanaged.takeUnretainedValue()
                grouped[Place(spec: spec, key: CodePointKey(rawKey(of: Claim(spec: spec, row: row)))), default: []].append(row)
            }
        }
        var index = IdIndex()
        index.reserve(expected)
        var kept: [SectionNode] = []
        kept.reserveCapacity(sections.count)
        // Every section of the result is a section of this snapshot (its rows are here), so
        // walking these in order gives the result's order.
        for node in sections {
            let grouping = definition.sections[node.spec]
            var rows: RowSequence
            switch grouping.content {
            case .literal:
                // Without duplicates, every literal row is kept.
                rows = node.rows
                for row in grouping.literalRows { index.set(row.id, IdEntry(single: Claim(spec: node.spec, row: row))) }
            case .data:
                var list = grouped.removeValue(forKey: Place(spec: node.spec, key: CodePointKey(node.rawKey))) ?? []
                if list.isEmpty && grouping.isGrouped { continue }
                RowSorter.sort(&list, order: definition.orders[node.spec])
                for row in list { index.set(row.id, IdEntry(single: Claim(spec: node.spec, row: row))) }
                rows = RowSequence(sorted: list)
            }
            kept.append(SectionNode(spec: node.spec, rawKey: node.rawKey, key: node.rawKey, rows: rows))
        }
        return ListSnapshot(definition: definition, sections: kept, index: index, duplicates: 0)
    }

    /// This snapshot as a search or filter result: a data-bound section without rows goes (a
    /// keyed one as well as a group), now and after every write applied to the result later;
    /// literal sections stay. Costs O(sections).
    public func asSearchResult() -> ListSnapshot {
        var result = self
        result.isSearchResult = true
        var kept = result.sections
        kept.removeAll { $0.rows.isEmpty && result.vanishesWhenEmpty($0.spec) }
        if kept.count != result.sections.count {
            result.sections = kept
            result.recomputeKeys()
            result.recomputeStarts()
        }
        return result
    }

    /// A section position: spec and raw key.
    private struct Place: Hashable {
        let spec: Int
        let key: CodePointKey
    }
}
