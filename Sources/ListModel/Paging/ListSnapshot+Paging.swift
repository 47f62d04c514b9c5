import JSONOutput

/// One page of visible rows.
public struct Page: Sendable {
    /// A section on the page: the rows `rowOffset ..< rowOffset+rowCount` of section `index`
    /// (rowCount 0 for a section without visible rows).
    public struct Entry: Sendable, Equatable {
        /// The section index.
        public let index: Int
        /// The index of the section's first row on the page.
        public let rowOffset: Int
        /// Rows of the section on the page.
        public let rowCount: Int
    }

    /// The sections on the page, in order.
    public let entries: [Entry]
    /// The next page's token; `nil` on the last page.
    public let nextPageToken: String?
    /// Visible rows before this page.
    public let itemsBefore: Int
    /// Visible rows after this page.
    public let itemsAfter: Int
    /// The view the page was cut for (hidden flags of its sections).
    public let view: ViewState

    /// Number of rows on the page.
    public var rowCount: Int { entries.reduce(0) { $0 + $1.rowCount } }
}

/// Visible rows `start ..< start+count` of one section (the section-range read).
public struct SectionRange: Sendable {
    /// The section index.
    public let section: Int
    /// The first row (clamped to the visible rows).
    public let start: Int
    /// Rows in the range (0 when hidden or past the end).
    public let count: Int
    /// The view the range was read through.
    public let view: ViewState
}

extension ListSnapshot {
    /// Cuts a page of `size` visible rows (pass a size already resolved by ``PageSize``).
    ///
    /// Without a token the page starts at the first visible row; with one, at the first visible
    /// row ordered after the row the token names, even if that row was deleted or rows were
    /// inserted. A page lists every section with a row on it, plus every section without
    /// visible rows (empty or hidden) that lies after the page's first row (the first page:
    /// from the start) and before the next page's first row; the last page takes all trailing
    /// ones. A list with no visible rows is one page holding all sections.
    ///
    /// - Throws: ``PageTokenError`` for a malformed token or one bound to another list/view.
    public func page(size: Int, token: String?, view: ViewState, binding: PageBinding) throws(PageTokenError) -> Page {
        let size = PageSize.resolve(size)
        let n = sections.count
        var decoded: PageToken? = nil
        if let token { decoded = try PageToken.decode(token, binding: binding) }
        if let t = decoded, t.spec >= definition.sections.count { throw .malformed }
        // A position has one sort value per `sortBy` field of its spec (a literal row: its
        // position): one with another count (a forged token; the definition changing changes the
        // binding) compares with the rows by a quick key and a full one that disagree.
        if let t = decoded, t.sortKey.count != definition.orders.withUnsafeBufferPointer({ $0[t.spec].fieldCount }) { throw .malformed }
        if let t = decoded, t.cut != nil { decoded = resolveCut(t) }
        // Visible rows per section (0 when hidden), read once: no section node is copied, and
        // the view's hash set is asked once per section rather than in every loop below.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: max(1, n)) { buf in
            let visible = buf.baseAddress!
            // The default view (same hidden set as the definition's) uses the flags cached per
            // section instead of hashing every key.
            let isDefault = !view.hidden.isEmpty && view.hidden == definition.defaultHidden
            sections.withUnsafeBufferPointer { secs in
                for j in 0..<n {
                    let node = secs.baseAddress! + j
                    let hidden = isDefault && node.pointee.text != nil ? node.pointee.hiddenByDefault : view.isHidden(node.pointee.key)
                    visible[j] = hidden ? 0 : node.pointee.rows.count
                }
            }
            return cutPage(size: size, token: decoded, visible: visible, view: view, binding: binding)
        }
    }

    private func cutPage(size: Int, token: PageToken?, visible: UnsafeMutablePointer<Int>, view: ViewState, binding: PageBinding) -> Page {
        let n = sections.count
        var start: (section: Int, row: Int)? = nil
        var lowerRowless = 0
        if let t = token {
            let (si, found) = sectionLowerBound(spec: t.spec, rawKey: t.rawKey, rank: t.cut?.keyRank)
            var j = si
            if found {
                let r = definition.orders.withUnsafeBufferPointer { orders in
                    sections.withUnsafeBufferPointer { secs in
                        secs[si].rows.withRowsView {
                            $0.lowerBound(t.sortKey, t.rowID, order: orders.baseAddress! + t.spec, strictly: true, guess: t.guess)
                        }
                    }
                }
                if r < visible[si] { start = (si, r) }
                j = si + 1
            }
            while start == nil && j < n {
                if visible[j] > 0 { start = (j, 0) }
                j += 1
            }
            lowerRowless = Self.firstRowlessNotSent(token: t, section: si, found: found, start: start?.section,
                                                    visible: visible, count: n)
        } else {
            for j in 0..<n where visible[j] > 0 {
                start = (j, 0)
                break
            }
        }

        var visibleTotal = 0
        var visibleBefore = 0
        for j in 0..<n {
            let c = visible[j]
            if let s = start, j < s.section { visibleBefore += c }
            visibleTotal += c
        }
        if let s = start { visibleBefore += s.row } else { visibleBefore = visibleTotal }

        var entries: [Page.Entry] = []
        var last: (section: Int, row: Int)? = nil
        var upperRowless = n
        if let s = start {
            // Rowless sections before the start that no page listed yet come first (on the
            // first page, every one before the start).
            for k in lowerRowless..<max(lowerRowless, s.section) where visible[k] == 0 {
                entries.append(Page.Entry(index: k, rowOffset: 0, rowCount: 0))
            }
            let headCount = entries.count
            var left = size
            var j = s.section
            var r = s.row
            while j < n {
                let v = visible[j]
                if v == 0 {
                    if j >= lowerRowless { entries.append(Page.Entry(index: j, rowOffset: 0, rowCount: 0)) }
                } else {
                    if left == 0 { upperRowless = j; break }
                    let take = min(left, v - r)
                    entries.append(Page.Entry(index: j, rowOffset: r, rowCount: take))
                    left -= take
                    last = (j, r + take - 1)
                    if r + take < v { upperRowless = j; break }
                }
                j += 1
                r = 0
            }
            // Trim rowless entries that lie after the next page's first row.
            if upperRowless != n {
                var k = headCount
                for e in entries[headCount...] where e.rowCount > 0 || e.index < upperRowless {
                    entries[k] = e
                    k += 1
                }
                entries.removeSubrange(k...)
            }
        } else {
            for j in lowerRowless..<max(lowerRowless, n) { entries.append(Page.Entry(index: j, rowOffset: 0, rowCount: 0)) }
        }
        var onPage = 0
        for e in entries { onPage += e.rowCount }
        let after = visibleTotal - visibleBefore - onPage
        var next: String? = nil
        if after > 0, let l = last {
            // Encoded straight from the (unretained) row: no copy of its shared strings.
            next = sections.withUnsafeBufferPointer { secs in
                let node = secs.baseAddress! + l.section
                let spec = node.pointee.spec
                let keyOrder = rankers.withUnsafeBufferPointer { rankers -> (rank: Int, descending: Bool) in
                    let ranker = rankers.baseAddress! + spec
                    let rank = node.pointee.rank >= 0 ? node.pointee.rank : ranker.pointee.rank(of: node.pointee.rawKey)
                    return (rank, ranker.pointee.isDescending)
                }
                return node.pointee.rows.withRowsView { rows in
                    rows.withRow(at: l.row) { row in
                        definition.orders.withUnsafeBufferPointer { orders in
                            PageToken.encode(spec: spec, rawKey: node.pointee.rawKey, sortKey: row.sortKey, rowID: row.id,
                                             order: orders[spec], keyOrder: keyOrder, binding: binding, guess: l.row + 1,
                                             endedInsideSection: l.row + 1 < visible[l.section])
                        }
                    }
                }
            }
        }
        return Page(entries: entries, nextPageToken: next, itemsBefore: visibleBefore, itemsAfter: after, view: view)
    }

    /// The first section from which the sections without visible rows are still to be listed
    /// (those before it were, by an earlier page), for a page after `token`, whose section is
    /// at `section` (`found`: still there; else where it would be) and whose first row is in
    /// section `start` (nil: no row is left).
    ///
    /// Without a change between the two reads, that is the section after the start: the token's
    /// page listed every rowless section up to it. After one, the token says which it listed: a
    /// page that left rows of its section (``PageToken/endedInsideSection``) listed none after
    /// it, so those are still due even when the rest of that section has since gone (deleted or
    /// hidden in the view); a page that ended at its section's end listed those up to the next
    /// section with rows, so rows added to the end of its section since do not list them again.
    /// One case stays open: that next section losing all its visible rows before the read is
    /// not seen, and it is not listed (its rows would have been the page's; the token does not
    /// name it).
    private static func firstRowlessNotSent(token: PageToken, section: Int, found: Bool, start: Int?,
                                            visible: UnsafeMutablePointer<Int>, count n: Int) -> Int {
        let afterToken = found ? section + 1 : section
        if token.endedInsideSection { return afterToken }
        guard let start else { return afterToken }
        guard found, start == section else { return start + 1 }
        // Rows added after the token's in its section: the rowless sections that follow it up
        // to the next section with rows were listed.
        var k = section + 1
        while k < n && visible[k] == 0 { k += 1 }
        return k
    }

    /// The position a cut token (one with shortened fields) stands for: exactly its row's, when
    /// that row still has the same id, section and sort key (the token's position hash
    /// matches); otherwise the cut position, with the full section key when a section of the
    /// spec still has the key the token's key hash names (else the cut key, with the full key's
    /// explicit-order rank).
    private func resolveCut(_ t: PageToken) -> PageToken {
        guard let cut = t.cut else { return t }
        if let claim = index[t.rowID]?.claims.first(where: { $0.spec == t.spec }) {
            let key = rawKey(of: claim)
            if PageToken.positionHash(spec: t.spec, rawKey: key, sortKey: claim.row.sortKey, rowID: claim.row.id) == cut.positionHash {
                return PageToken(spec: t.spec, rawKey: key, sortKey: claim.row.sortKey, rowID: claim.row.id, guess: t.guess,
                                 endedInsideSection: t.endedInsideSection)
            }
        }
        for node in sections where node.spec == t.spec && FNV1a.hash(node.rawKey) == cut.keyHash {
            return PageToken(spec: t.spec, rawKey: node.rawKey, sortKey: t.sortKey, rowID: t.rowID, guess: t.guess,
                             endedInsideSection: t.endedInsideSection)
        }
        // The section is gone: its cut key (raised for a descending order) with the full key's rank.
        return t
    }

    /// Visible rows `[start, start+count)` of section `index` (hidden → none; start past the
    /// end → none); `nil` when the section does not exist. `start`/`count` < 0 count as 0.
    public func sectionRange(_ index: Int, start: Int, count: Int, view: ViewState) -> SectionRange? {
        guard index >= 0, index < sections.count else { return nil }
        let visible = view.isHidden(sections[index].key) ? 0 : sections[index].rows.count
        let s = max(0, start)
        let c = s >= visible ? 0 : min(max(0, count), visible - s)
        return SectionRange(section: index, start: min(s, visible), count: c, view: view)
    }

    /// Writes section `index` as an object with its rows `start ..< start+count` as `rows`
    /// (and `"rowOffset":start` when `rowOffset`), as pages and section ranges serve it.
    public func writeSectionWithRows(_ index: Int, view: ViewState, start: Int, count: Int, rowOffset: Bool,
                                      into w: inout JSONWriter) {
        w.beginObject()
        writeSectionMembers(index, view: view, into: &w)
        if rowOffset { w.key("rowOffset"); w.int(start) }
        w.key("rows")
        w.beginArray()
        appendRows(section: index, start: start, count: count, into: &w)
        w.endArray()
        w.endObject()
    }
}
