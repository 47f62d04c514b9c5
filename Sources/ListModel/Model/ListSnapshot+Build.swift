extension ListSnapshot {
    /// Records per part when rows are made in parts: below twice this, one part (a thread's
    /// start-up is not worth a few thousand rows).
    static let rowsPerPart = 8_192

    /// Builds a list from a definition and the records of its source collections.
    ///
    /// Rows are made (templates rendered, JSON pre-encoded), ids claimed and sections sorted in
    /// parts that `parallelism` may run at once; the claims of one id are made in record order
    /// (``IdIndex/claim(_:spec:parallelism:)``), so the result does not depend on how the parts
    /// ran. Measured at start-up with 1,000,000 records on 2 cores (`make bench`'s cold start):
    /// making rows was 40% of the build, claiming ids 20% and sorting 20%, all now spread over
    /// the cores.
    ///
    /// - Parameters:
    ///   - definition: the validated definition.
    ///   - records: records (JSON objects with a string `"id"`) per collection name; collections
    ///     the list does not read are ignored, missing ones count as empty.
    ///   - parallelism: how the parts run (one after another by default).
    public static func build(definition: ListDefinition, records: [String: [JSONValue]],
                             parallelism: Parallelism = .serial) -> ListSnapshot {
        var split: [(collection: String, records: ArraySlice<JSONValue>)] = []
        for (collection, all) in records where definition.reads(collection: collection) {
            let count = max(1, all.count / rowsPerPart)
            let size = (all.count + count - 1) / count
            for part in 0..<count { split.append((collection, all[min(part * size, all.count)..<min((part + 1) * size, all.count)])) }
        }
        let parts = split
        let pages = parallelism.map(parts.count) { PageRows(definition: definition, collection: parts[$0].collection, records: parts[$0].records) }
        return build(definition: definition, pages: pages, parallelism: parallelism)
    }

    /// Builds a list from rows made ahead for `definition`, a page of records at a time (``PageRows``): as
    /// ``build(definition:records:parallelism:)`` with each collection's records in the order of
    /// its pages. Start-up makes each page's rows as soon as the page is parsed and drops the
    /// parsed records at once, so they never pile up beside the rows (which left a third of the
    /// resident memory in holes glibc could not give back: see `ViewModelStore.readAll`).
    public static func build(definition: ListDefinition, pages: [PageRows], parallelism: Parallelism = .serial) -> ListSnapshot {
        var parts: [Int: [ContiguousArray<Row>]] = [:]
        for page in pages {
            for (spec, rows) in page.rows { parts[spec, default: []].append(rows) }
        }
        return build(definition: definition, parts: parts, parallelism: parallelism)
    }

    /// The build proper, from each data spec's rows (in parts, in record order).
    private static func build(definition: ListDefinition, parts made: [Int: [ContiguousArray<Row>]],
                              parallelism: Parallelism) -> ListSnapshot {
        var index = IdIndex()
        index.reserve(made.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }, parallelism: parallelism)
        var duplicates = 0
        /// Sections in order, and their rows not yet sorted.
        var unsorted: [(spec: Int, key: String)] = []
        var unsortedRows: [ContiguousArray<Row>] = []

        for spec in definition.sections {
            switch spec.content {
            case .literal:
                let rows = ContiguousArray(spec.literalRows)
                let (owned, found) = index.claim([rows], spec: spec.index, parallelism: parallelism)
                duplicates += found
                unsorted.append((spec.index, spec.key ?? ""))
                unsortedRows.append(ContiguousArray(zip(rows, owned[0]).filter(\.1).map(\.0)))
            case .data(let b):
                let parts = made[spec.index] ?? []
                let (owned, found) = index.claim(parts, spec: spec.index, parallelism: parallelism)
                duplicates += found
                if b.groupBy == nil {
                    var kept = ContiguousArray<Row>()
                    kept.reserveCapacity(parts.reduce(0) { $0 + $1.count })
                    for (part, owns) in zip(parts, owned) {
                        for i in part.indices where owns[i] { kept.append(part[i]) }
                    }
                    unsorted.append((spec.index, spec.key ?? ""))
                    unsortedRows.append(kept)
                } else {
                    // Each part grouped on its own (a hash of every row's key: 0.15 s of start-up
                    // on one core for 1,000,000 rows), then the groups joined in part order.
                    let grouped = parallelism.map(parts.count) { p -> [CodePointKey: ContiguousArray<Row>] in
                        var groups: [CodePointKey: ContiguousArray<Row>] = [:]
                        let part = parts[p], owns = owned[p]
                        for i in part.indices where owns[i] {
                            groups[CodePointKey(part[i].groupKey), default: []].append(part[i])
                        }
                        return groups
                    }
                    var groups: [CodePointKey: ContiguousArray<Row>] = [:]
                    for part in grouped {
                        for (key, rows) in part { groups[key, default: []].append(contentsOf: rows) }
                    }
                    let ranker = SectionRanker(b.sectionOrder)
                    let keys = groups.keys.sorted { ranker.compare($0.string, $1.string) < 0 }
                    for k in keys {
                        unsorted.append((spec.index, k.string))
                        unsortedRows.append(groups.removeValue(forKey: k)!)
                    }
                }
            }
        }

        // Each section sorted in place (literal rows keep their order) and chunked as one part.
        let specs = unsorted.map { $0.spec }
        let sequences = parallelism.map(taking: consume unsortedRows) { i, rows -> RowSequence in
            if case .data = definition.sections[specs[i]].content {
                RowSorter.sort(&rows, order: definition.orders[specs[i]])
            }
            return RowSequence(sorted: rows)
        }
        var sections: [SectionNode] = []
        sections.reserveCapacity(unsorted.count)
        for (i, s) in unsorted.enumerated() {
            sections.append(SectionNode(spec: s.spec, rawKey: s.key, key: s.key, rows: sequences[i]))
        }
        return ListSnapshot(definition: definition, sections: sections, index: index, duplicates: duplicates)
    }
}
