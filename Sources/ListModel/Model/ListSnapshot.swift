/// An immutable built list: sections, rows, tags and the id index.
///
/// A value with copy-on-write storage: readers keep using a snapshot while a writer derives the
/// next one with ``applying(_:collection:)``, which costs O(log n) plus the size of one row chunk
/// and one index shard, plus O(number of sections) — never a rebuild.
///
/// Choices where the contract is silent:
/// - A `groupBy` section exists while at least one row is kept in it (rows lost to an earlier
///   spec as duplicates do not keep a group alive); literal and keyed sections always exist.
/// - Section keys: a key the configuration fixes (a literal or keyed section) is always its
///   section's, whatever the data. A group whose value is such a key, or the key of a group
///   before it (possible only at run time, with `groupBy`; static duplicates are config errors),
///   is served with the key `key#<spec index>` (then `#2`, … if that is taken too), so keys stay
///   unique, views and `hiddenByDefault` keep naming the configured section, and no rows are
///   lost; `{$key}` still renders the group value.
/// - Record ids must be unique within a collection (the store guarantees it); records without
///   a string `id` are ignored.
public struct ListSnapshot: Sendable {
    /// The definition this list was built from.
    public let definition: ListDefinition
    var sections: [SectionNode]
    /// `tagStarts[i]` = first tag of section i; one extra entry = total tags.
    var tagStarts: [Int]
    /// `rowStarts[i]` = rows before section i; one extra entry = total rows.
    var rowStarts: [Int]
    var index: IdIndex
    /// Per spec: how its sections are ordered (`isGrouped == false`: one section, no order).
    let rankers: [SectionRanker]
    /// Row occurrences dropped because an earlier spec claimed the same id, in the
    /// current state. The service adds increases to `sectional_duplicate_rows_total`.
    public internal(set) var duplicateRowCount: Int
    /// Whether this is a search or filter result (``asSearchResult()``), whose data-bound
    /// sections exist only while they hold rows; in a list only groups do.
    public internal(set) var isSearchResult = false

    /// Number of sections.
    public var sectionCount: Int { sections.count }
    /// Number of rows, hidden or not.
    public var totalRowCount: Int { rowStarts[sections.count] }
    /// Number of tags used by all rows (hidden sections included).
    public var tagCount: Int { tagStarts[sections.count] }

    /// Rows a view sees (hidden sections count 0).
    public func rowCount(in view: ViewState) -> Int {
        if view.hidden.isEmpty { return totalRowCount }
        var n = 0
        for s in sections where !view.isHidden(s.key) { n += s.rows.count }
        return n
    }

    init(definition: ListDefinition, sections: [SectionNode], index: IdIndex, duplicates: Int) {
        self.definition = definition
        self.sections = sections
        self.index = index
        self.duplicateRowCount = duplicates
        self.rankers = definition.sections.map { $0.isGrouped ? SectionRanker($0.binding!.sectionOrder) : SectionRanker(.ascending, isGrouped: false) }
        self.tagStarts = []
        self.rowStarts = []
        recomputeKeys()
        recomputeStarts()
    }

    mutating func recomputeStarts() {
        // New arrays sized to the sections, not the old ones cleared: clearing an array that the
        // previous snapshot shares "keeping capacity" allocates the old capacity, and glibc may
        // hand out a slightly larger block whose spare room becomes capacity — so it ratcheted
        // up write after write (to kilobytes per version, held 1,000 times by the history).
        var tags = [Int](), rows = [Int]()
        tags.reserveCapacity(sections.count + 1)
        rows.reserveCapacity(sections.count + 1)
        var t = 0, r = 0
        // Read in place: `for s in sections` copied each node, retaining its strings and rows on
        // every write. Callgrind, durable PUTs one at a time into the 100,000-row list: 6,455 →
        // 3,867 instructions a call (the section texts' check included), 273,317 → 267,813 a write.
        sections.withUnsafeBufferPointer { secs in
            for i in secs.indices {
                let node = secs.baseAddress! + i
                tags.append(t)
                rows.append(r)
                t += node.pointee.rows.tagCount
                r += node.pointee.rows.count
            }
        }
        tags.append(t)
        rows.append(r)
        tagStarts = tags
        rowStarts = rows
        refreshSectionTexts()
    }

    /// Re-renders the pre-encoded members of sections whose key or row count changed (after a
    /// write, usually one section: O(sections) checks plus one small render).
    mutating func refreshSectionTexts() {
        // Find stale sections in a read-only pass (no node is copied), then update only those.
        let n = sections.count
        withUnsafeTemporaryAllocation(of: Bool.self, capacity: max(1, n)) { stale in
            var any = false
            sections.withUnsafeBufferPointer { secs in
                for i in 0..<n {
                    let node = secs.baseAddress! + i
                    let current: Bool
                    if node.pointee.rank < 0 { current = false }
                    else if let t = node.pointee.text { current = t.isCurrent(count: node.pointee.rows.count, key: node.pointee.key) }
                    else { current = false }
                    stale[i] = !current
                    any = any || !current
                }
            }
            guard any else { return }
            for i in 0..<n where stale[i] {
                if sections[i].rank < 0 { sections[i].rank = rankers[sections[i].spec].rank(of: sections[i].rawKey) }
                if let t = sections[i].text, t.isCurrent(count: sections[i].rows.count, key: sections[i].key) { continue }
                sections[i].text = SectionText(definition.sections[sections[i].spec], node: sections[i])
                sections[i].hiddenByDefault = definition.defaultHidden.contains(CodePointKey(sections[i].key))
            }
        }
    }

    /// Whether spec `spec`'s section goes when its last row does: a group's always, any
    /// data-bound section's in a search result.
    @inline(__always)
    func vanishesWhenEmpty(_ spec: Int) -> Bool {
        let s = definition.sections[spec]
        return s.isGrouped || (isSearchResult && s.binding != nil)
    }

    /// Makes served keys unique (a configured key is its section's; see the type's documentation).
    /// Every configured key is reserved, present or not: a search result drops a keyed section
    /// without matches, and a group there still keeps the key the whole list serves it under.
    mutating func recomputeKeys() {
        var used = Set<CodePointKey>(minimumCapacity: sections.count)
        for spec in definition.sections where !spec.isGrouped { used.insert(CodePointKey(spec.key ?? "")) }
        for i in sections.indices {
            let raw = sections[i].rawKey
            var key = raw
            if definition.sections[sections[i].spec].isGrouped, !used.insert(CodePointKey(key)).inserted {
                key = "\(raw)#\(sections[i].spec)"
                var n = 2
                while !used.insert(CodePointKey(key)).inserted {
                    key = "\(raw)#\(sections[i].spec)#\(n)"
                    n += 1
                }
            }
            if !codePointEqual(sections[i].key, key) { sections[i].key = key }
        }
    }

    /// Compares a section position (spec, raw key) with section `i`.
    @inline(__always)
    func compareSection(spec: Int, rawKey: String, to i: Int) -> Int {
        sections.withUnsafeBufferPointer { secs in
            rankers.withUnsafeBufferPointer { rankers in
                let keyRank = (rankers.baseAddress! + spec).pointee.rank(of: rawKey)
                return Self.compareSection(spec: spec, rawKey: rawKey, keyRank: keyRank, to: secs.baseAddress! + i, rankers: rankers)
            }
        }
    }

    /// Compares a section position (spec, raw key whose rank is `keyRank`) with a section, in
    /// place: no section node or ranker is copied (copies retain shared storage).
    @inline(__always)
    private static func compareSection(spec: Int, rawKey: String, keyRank: Int, to s: UnsafePointer<SectionNode>,
                                       rankers: UnsafeBufferPointer<SectionRanker>) -> Int {
        let other = s.pointee.spec
        if spec != other { return spec < other ? -1 : 1 }
        let ranker = rankers.baseAddress! + spec
        guard ranker.pointee.isGrouped else { return 0 }
        let rank = s.pointee.rank
        return ranker.pointee.compare(rawKey, rank: keyRank, s.pointee.rawKey,
                                      rank: rank >= 0 ? rank : ranker.pointee.rank(of: s.pointee.rawKey))
    }

    /// First section index whose position is ≥ (spec, rawKey); `found` when equal. `rank`
    /// overrides the key's rank in an explicit section order (for a cut key from a page token).
    func sectionLowerBound(spec: Int, rawKey: String, rank: Int? = nil) -> (index: Int, found: Bool) {
        sections.withUnsafeBufferPointer { secs in
            rankers.withUnsafeBufferPointer { rankers in
                let base = secs.baseAddress
                // Read in place: `rankers[spec]` would copy the ranker (retaining its dictionary).
                let keyRank = rank ?? (spec < rankers.count ? (rankers.baseAddress! + spec).pointee.rank(of: rawKey) : Int.max)
                var lo = 0, hi = secs.count
                while lo < hi {
                    let mid = (lo + hi) >> 1
                    if Self.compareSection(spec: spec, rawKey: rawKey, keyRank: keyRank, to: base! + mid, rankers: rankers) > 0 { lo = mid + 1 } else { hi = mid }
                }
                let found = lo < secs.count && Self.compareSection(spec: spec, rawKey: rawKey, keyRank: keyRank, to: base! + lo, rankers: rankers) == 0
                return (lo, found)
            }
        }
    }

    /// The raw key of the section a claim's row belongs to.
    @inline(__always)
    func rawKey(of claim: Claim) -> String {
        rankers.withUnsafeBufferPointer { $0[claim.spec].isGrouped } ? claim.row.groupKey
            : definition.sections.withUnsafeBufferPointer { $0[claim.spec].key ?? "" }
    }
}
