extension ListSnapshot {
    /// Builds a list from a definition and the records of its source collections.
    ///
    /// - Parameters:
    ///   - definition: the validated definition.
    ///   - records: records (JSON objects with a string `"id"`) per collection name; collections
    ///     the list does not read are ignored, missing ones count as empty.
    public static func build(definition: ListDefinition, records: [String: [JSONValue]]) -> ListSnapshot {
        var factory = RowFactory()
        var index = IdIndex()
        let expected = definition.sources.reduce(0) { $0 + (records[$1]?.count ?? 0) }
        index.reserve(expected)
        var duplicates = 0
        var sections: [SectionNode] = []

        /// Registers a claim; returns `true` when the claim owns the id.
        func claim(_ id: String, _ c: Claim) -> Bool {
            // One hash look-up in the common case (a new id); a taken id gets its entry back.
            guard let e = index.replace(id, with: IdEntry(single: c)) else { return true }
            var cs = e.claims
            if cs.last!.spec == c.spec {   // same collection twice: keep the first
                index.set(id, e)
                return false
            }
            cs.append(c)
            index.set(id, IdEntry(cs))
            duplicates += 1
            return false
        }

        for spec in definition.sections {
            let order = definition.orders[spec.index]
            switch spec.content {
            case .literal:
                var kept = ContiguousArray<Row>()
                for r in spec.literalRows where claim(r.id, Claim(spec: spec.index, row: r)) { kept.append(r) }
                sections.append(SectionNode(spec: spec.index, rawKey: spec.key ?? "", key: spec.key ?? "", rows: RowSequence(sorted: kept)))
            case .data(let b):
                let recs = records[b.source] ?? []
                if b.groupBy == nil {
                    var kept = ContiguousArray<Row>()
                    kept.reserveCapacity(recs.count)
                    for v in recs {
                        guard case .object(let o) = v, case .string(let id)? = o["id"], b.matches(o) else { continue }
                        let row = factory.dataRow(binding: b, record: o, id: id)
                        if claim(id, Claim(spec: spec.index, row: row)) { kept.append(row) }
                    }
                    RowSorter.sort(&kept, order: order)
                    sections.append(SectionNode(spec: spec.index, rawKey: spec.key ?? "", key: spec.key ?? "", rows: RowSequence(sorted: kept)))
                } else {
                    var groups: [CodePointKey: ContiguousArray<Row>] = [:]
                    for v in recs {
                        guard case .object(let o) = v, case .string(let id)? = o["id"], b.matches(o) else { continue }
                        let row = factory.dataRow(binding: b, record: o, id: id)
                        if claim(id, Claim(spec: spec.index, row: row)) { groups[CodePointKey(row.groupKey), default: []].append(row) }
                    }
                    let ranker = SectionRanker(b.sectionOrder)
                    let keys = groups.keys.sorted { ranker.compare($0.string, $1.string) < 0 }
                    for k in keys {
                        var rows = groups.removeValue(forKey: k)!
                        RowSorter.sort(&rows, order: order)
                        sections.append(SectionNode(spec: spec.index, rawKey: k.string, key: k.string, rows: RowSequence(sorted: rows)))
                    }
                }
            }
        }
        return ListSnapshot(definition: definition, sections: sections, index: index, duplicates: duplicates)
    }
}
