/// One built section: which spec made it, its keys and its rows. Header texts are rendered
/// when served (they may depend on the row count).
struct SectionNode: Sendable {
    /// Index of the spec in the definition.
    let spec: Int
    /// The key before de-duplication: the spec's `key`, or the group's string form.
    let rawKey: String
    /// The served key: `rawKey`, or `rawKey#<spec index>` when an earlier spec already produced
    /// a section with that key (see ``ListSnapshot``).
    var key: String
    var rows: RowSequence
}

/// Orders the sections of one spec by their raw keys (SPEC `sectionOrder`).
struct SectionRanker: Sendable {
    let order: SectionOrder
    let explicitRank: [CodePointKey: Int]

    init(_ order: SectionOrder) {
        self.order = order
        var rank: [CodePointKey: Int] = [:]
        if case .explicit(let keys) = order {
            for (i, k) in keys.enumerated() where rank[CodePointKey(k)] == nil { rank[CodePointKey(k)] = i }
        }
        explicitRank = rank
    }

    @inline(__always)
    func compare(_ a: String, _ b: String) -> Int {
        switch order {
        case .ascending: return compareCodePoints(a, b)
        case .descending: return compareCodePoints(b, a)
        case .explicit:
            let ra = explicitRank[CodePointKey(a)], rb = explicitRank[CodePointKey(b)]
            switch (ra, rb) {
            case let (x?, y?): return x == y ? 0 : (x < y ? -1 : 1)
            case (.some, nil): return -1
            case (nil, .some): return 1
            case (nil, nil): return compareCodePoints(a, b)
            }
        }
    }
}
