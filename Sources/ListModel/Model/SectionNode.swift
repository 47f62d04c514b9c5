import JSONOutput

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
    /// The section's pre-encoded members for its current key and row count (`nil` until the
    /// snapshot renders it; see ``ListSnapshot/refreshSectionTexts()``).
    var text: SectionText? = nil
    /// ``SectionRanker/rank(of:)`` of `rawKey` (-1 until the snapshot computes it).
    var rank = -1
    /// Whether the definition's default view hides this section (set with `text`).
    var hiddenByDefault = false
}

/// The members of a section object that depend only on its spec, served key, raw key and row
/// count — `,"key":…,"type":…,"title":…[,"icon":…],"header":…,"footer":…,"insets":{…},
/// "lineSpacing":N` — pre-encoded so serving a section renders no template and allocates
/// nothing. Accessibility identifiers that include the section index get `_<index>` spliced in
/// at up to two positions when written. Immutable; shared by the snapshots that share the node.
final class SectionText: Sendable {
    let key: String
    let count: Int
    let bytes: [UInt8]
    /// Positions in ``bytes`` where `_<index>` goes (ascending; -1 = none).
    let split1: Int
    let split2: Int

    init(_ spec: SectionSpec, node: SectionNode) {
        let count = node.rows.count
        var w = JSONWriter(capacity: 256)
        var scratch = ByteBuffer(capacity: 64)
        var splits = (-1, -1)
        func rendered(_ t: Template) {
            scratch.removeAll()
            t.render(key: node.rawKey, count: count, into: &scratch)
            scratch.withBytes { w.string(utf8: $0) }
        }
        func supplementary(_ sup: SupplementarySpec?, _ kind: StaticString) {
            guard let sup else { return }  // absent, never null
            w.key(kind)
            w.beginObject()
            w.key("title"); rendered(sup.title)
            w.key("height"); w.double(sup.height)
            if let acc = spec.accessibility {
                w.key("accessibilityIdentifier")
                scratch.removeAll()
                scratch.append(utf8: acc.identifier)
                scratch.append(ASCII.underscore)
                scratch.append(kind)
                scratch.withBytes { w.string(utf8: $0) }
                if acc.includesSection {
                    w.bytes.removeLast()          // the closing quote; `_<index>"` is written later
                    if splits.0 < 0 { splits.0 = w.bytes.count } else { splits.1 = w.bytes.count }
                    w.bytes.append(ASCII.quote)
                }
            }
            w.endObject()
        }
        w.beginObject()
        w.key("key"); w.string(node.key)
        w.key("type"); w.string(spec.type)
        w.key("title"); rendered(spec.title)
        if let icon = spec.icon {
            scratch.removeAll()
            icon.render(key: node.rawKey, count: count, into: &scratch)
            if !scratch.isEmpty { w.key("icon"); scratch.withBytes { w.string(utf8: $0) } }
        }
        supplementary(spec.header, "header")
        supplementary(spec.footer, "footer")
        w.key("insets")
        w.beginObject()
        w.key("top"); w.double(spec.insets.top)
        w.key("left"); w.double(spec.insets.left)
        w.key("bottom"); w.double(spec.insets.bottom)
        w.key("right"); w.double(spec.insets.right)
        w.endObject()
        w.key("lineSpacing"); w.double(spec.lineSpacing)
        w.bytes[0] = ASCII.comma   // `{` → `,`: the members follow `"index":N`
        key = node.key
        self.count = count
        bytes = w.bytes
        split1 = splits.0
        split2 = splits.1
    }

    /// `true` when this text is current for a node.
    func isCurrent(count: Int, key: String) -> Bool { self.count == count && codePointEqual(self.key, key) }

    /// Appends the members for section `index` (no comma handling: a member must precede).
    @inline(__always)
    func write(index: Int, into w: inout JSONWriter) {
        bytes.withUnsafeBufferPointer { b in
            if split1 < 0 { w.bytes.append(contentsOf: b); return }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { t in
                let p = t.baseAddress!
                p[0] = ASCII.underscore
                let n = 1 + JSONNumberText.write(UInt(index), to: p + 1)
                let suffix = UnsafeBufferPointer(start: p, count: n)
                w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: b[0..<split1]))
                w.bytes.append(contentsOf: suffix)
                if split2 < 0 {
                    w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: b[split1...]))
                } else {
                    w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: b[split1..<split2]))
                    w.bytes.append(contentsOf: suffix)
                    w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: b[split2...]))
                }
            }
        }
    }
}

/// Orders the sections of one spec by their raw keys (the definition's `sectionOrder`).
///
/// The order is kept as a direction and the explicit keys' ranks, not as the ``SectionOrder`` it
/// came from: matching that enum copied it, retaining and releasing its `.explicit` case's
/// array at every probe of a section search (`sectionLowerBound` held 53 calls to retain,
/// release or copy, 23 now). Not measurable in req/s: row-id look-ups on one pinned core, eight
/// alternating 4 s rounds, 11.94 → 11.75 µs of server CPU a request, then, swapped, 11.63 → 11.63.
struct SectionRanker: Sendable {
    /// Keys without an explicit rank in descending code point order (else ascending).
    let isDescending: Bool
    /// The keys `sectionOrder` lists, by position (empty unless it lists some).
    let explicitRank: [CodePointKey: Int]
    /// `false` for the placeholder of a spec without `groupBy` (its one section needs no order).
    let isGrouped: Bool

    init(_ order: SectionOrder, isGrouped: Bool = true) {
        self.isGrouped = isGrouped
        var rank: [CodePointKey: Int] = [:]
        if case .explicit(let keys) = order {
            for (i, k) in keys.enumerated() where rank[CodePointKey(k)] == nil { rank[CodePointKey(k)] = i }
        }
        isDescending = order == .descending
        explicitRank = rank
    }

    /// A key's rank: its position in an explicit order, `Int.max` for keys ordered by code
    /// points (unlisted keys, ascending and descending orders) and for every key of a spec
    /// without `groupBy` (its placeholder is ascending, with no explicit keys), so callers need
    /// not ask ``isGrouped`` first.
    @inline(__always)
    func rank(of key: String) -> Int {
        guard !explicitRank.isEmpty else { return Int.max }
        return explicitRank[CodePointKey(key)] ?? Int.max
    }

    @inline(__always)
    func compare(_ a: String, _ b: String) -> Int { compare(a, rank: rank(of: a), b, rank: rank(of: b)) }

    /// Compares keys whose ranks are known (see ``rank(of:)``).
    @inline(__always)
    func compare(_ a: String, rank ra: Int, _ b: String, rank rb: Int) -> Int {
        if ra != rb { return ra < rb ? -1 : 1 }
        if ra != Int.max { return 0 }
        return isDescending ? compareCodePoints(b, a) : compareCodePoints(a, b)
    }
}
