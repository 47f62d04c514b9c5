extension ListSnapshot {
    /// The batch update that turns `old` — an earlier snapshot of the same
    /// definition — into `self`, both seen through `view`.
    ///
    /// The outline compared is, per section in order, its served key and the ids of its rows in
    /// order; a section the view hides has no rows (the view's *current* hidden set applies to
    /// both versions), so rows entering or leaving a hidden section are inserts or deletes.
    ///
    /// Cost follows the change, not the list: O(k log n + s) for k changed ids, n rows and s
    /// sections; it stops once more than `maxChanges` operations are certain, so a change too
    /// large to answer costs about O(maxChanges log n + s) before the `nil`. That rests on
    /// `changedRowIDs`: the ids of every record written (upserted or deleted) in the list's
    /// source collections between the two snapshots. Rows whose id is not in the set must be
    /// unchanged in content, section and sort position (literal rows never change); if the set
    /// misses a changed id the answer is wrong. Extra ids cost a little time and may let an
    /// unchanged row be the one listed as moved, never an invalid answer. ``ListChangeLog``
    /// keeps those ids itself (``ListChangeSpan/batchUpdate(view:maxChanges:)``): callers that
    /// keep versions use it rather than gathering ids.
    ///
    /// Choices where the contract is silent:
    /// - A section is the same in both versions when its served key, spec and raw key are all
    ///   equal. A section whose served key changed (the `key#<spec>` de-duplication of
    ///   ``ListSnapshot``) is deleted and inserted, as the outline's keys require.
    /// - Header fields are type, title, icon, header and footer (title, height), insets and line
    ///   spacing; not index, hidden, counts, first tag, nor the header/footer accessibility
    ///   identifiers' section suffix (position-dependent, like a row's index path).
    /// - A row's served content is its pre-encoded JSON (id, type, title, optional texts,
    ///   height, action), its tag length, and the spec's accessibility identifier prefix;
    ///   not its index path, tag location or accessibility suffixes.
    /// - Sections never reorder for one definition; if they did, the matched sections outside a
    ///   longest increasing run are moved, and a moved section whose header changed is deleted
    ///   and inserted instead (a move cannot say `updated`).
    /// - Rows: a changed row that stays in a surviving section is left in place (listed as
    ///   `updated` if its content changed) when its position among the unchanged rows is the
    ///   same and it keeps its order among the changed rows so left (a longest increasing
    ///   subsequence, to minimise moves); otherwise it moves.
    ///
    /// - Parameters:
    ///   - old: the earlier snapshot.
    ///   - changedRowIDs: ids of every record written between the two snapshots.
    ///   - view: the view whose hidden sections apply to both versions.
    ///   - maxChanges: the most operations the answer may list.
    /// - Returns: the update, or `nil` when it would list more than `maxChanges` operations or
    ///   the two snapshots come from different definitions (the client reloads).
    public func changes(from old: ListSnapshot, changedRowIDs: Set<String>, view: ViewState, maxChanges: Int) -> BatchUpdate? {
        guard old.definition.fingerprint == definition.fingerprint, maxChanges >= 0 else { return nil }
        var update = BatchUpdate()

        // MARK: Sections — O(sections).
        let plan = SectionPlan(old: old, new: self)
        var newOfOld = plan.newOfOld
        var oldOfNew = plan.oldOfNew
        for m in plan.moved {
            if headerChanged(old.sections[m.from], sections[m.to]) {
                newOfOld[m.from] = -1
                oldOfNew[m.to] = -1
            } else {
                update.sections.moved.append(m)
            }
        }
        for i in old.sections.indices {
            let j = newOfOld[i]
            if j < 0 {
                update.sections.deleted.append(i)
            } else if !plan.isMoved(old: i), headerChanged(old.sections[i], sections[j]) {
                update.sections.updated.append(i)
            }
        }
        for j in sections.indices where oldOfNew[j] < 0 { update.sections.inserted.append(j) }
        if update.operationCount > maxChanges { return nil }

        // MARK: Rows — O(k log n).
        var entries: [ChangedRow] = []
        entries.reserveCapacity(changedRowIDs.count)
        // Operations certain so far: a row op for every changed row that is deleted, inserted,
        // moved between sections or changed in content (moves within a section come later). Past
        // `maxChanges` the answer is a reload, so a large change costs O(maxChanges log n).
        var certain = update.operationCount
        for id in changedRowIDs {
            var e = ChangedRow()
            if let p = old.position(ofRowID: id), !view.isHidden(old.sections[p.section].key) {
                e.oldSection = p.section; e.oldRow = p.row; e.oldValue = p.value
            }
            if let p = position(ofRowID: id), !view.isHidden(sections[p.section].key) {
                e.newSection = p.section; e.newRow = p.row; e.newValue = p.value
            }
            let oldLive = e.oldSection >= 0 && newOfOld[e.oldSection] >= 0
            let newLive = e.newSection >= 0 && oldOfNew[e.newSection] >= 0
            if !oldLive && !newLive { continue }   // absent, hidden, or implied by a section op
            if oldLive && newLive {
                e.contentChanged = !servesSameContent(e.oldValue!, oldSpec: old.sections[e.oldSection].spec,
                                                      e.newValue!, newSpec: sections[e.newSection].spec)
                if e.contentChanged || newOfOld[e.oldSection] != e.newSection { certain += 1 }
            } else {
                certain += 1
            }
            if certain > maxChanges { return nil }
            entries.append(e)
        }
        if entries.isEmpty { return update.operationCount <= maxChanges ? update : nil }

        // Gaps: a changed row's position among the unchanged rows of its section, = its index
        // minus the changed rows before it there (in each version).
        let byOld = entries.indices.filter { entries[$0].oldSection >= 0 }.sorted {
            (entries[$0].oldSection, entries[$0].oldRow) < (entries[$1].oldSection, entries[$1].oldRow)
        }
        var rank = 0
        for (k, e) in byOld.enumerated() {
            if k > 0 && entries[byOld[k - 1]].oldSection != entries[e].oldSection { rank = 0 }
            entries[e].oldGap = entries[e].oldRow - rank
            rank += 1
        }
        let byNew = entries.indices.filter { entries[$0].newSection >= 0 }.sorted {
            (entries[$0].newSection, entries[$0].newRow) < (entries[$1].newSection, entries[$1].newRow)
        }
        rank = 0
        for (k, e) in byNew.enumerated() {
            if k > 0 && entries[byNew[k - 1]].newSection != entries[e].newSection { rank = 0 }
            entries[e].newGap = entries[e].newRow - rank
            rank += 1
        }

        // Rows that may stay: same surviving section, same gap. Per section, in new order, the
        // longest run increasing in old order stays.
        var k = 0
        while k < byNew.count {
            let section = entries[byNew[k]].newSection
            var candidates: [Int] = []
            while k < byNew.count && entries[byNew[k]].newSection == section {
                let e = entries[byNew[k]]
                if e.oldSection >= 0, oldOfNew[section] == e.oldSection, e.oldGap == e.newGap { candidates.append(byNew[k]) }
                k += 1
            }
            if candidates.count == 1 {
                entries[candidates[0]].stays = true
            } else if !candidates.isEmpty {
                for c in longestIncreasingRun(candidates.map { entries[$0].oldRow }) { entries[candidates[c]].stays = true }
            }
        }

        for e in entries {
            let oldLive = e.oldSection >= 0 && newOfOld[e.oldSection] >= 0
            let newLive = e.newSection >= 0 && oldOfNew[e.newSection] >= 0
            let from = ListIndexPath(section: e.oldSection, row: e.oldRow)
            let to = ListIndexPath(section: e.newSection, row: e.newRow)
            switch (oldLive, newLive) {
            case (false, false): continue
            case (true, false): update.rows.deleted.append(from)
            case (false, true): update.rows.inserted.append(to)
            case (true, true):
                let changed = e.contentChanged
                if e.stays {
                    if changed { update.rows.updated.append(from) }
                } else {
                    update.rows.moved.append(BatchUpdate.RowMove(from: from, to: to, updated: changed))
                }
            }
        }
        if update.operationCount > maxChanges { return nil }
        update.rows.deleted.sort()
        update.rows.inserted.sort()
        update.rows.updated.sort()
        update.rows.moved.sort { $0.from < $1.from }
        return update
    }

    /// Where the row with this id sits (hidden sections included), and the row.
    func position(ofRowID id: String) -> (section: Int, row: Int, value: Row)? {
        guard let e = index[id] else { return nil }
        let c = e.owner
        let (si, found) = sectionLowerBound(spec: c.spec, rawKey: rawKey(of: c))
        guard found, let ri = sections[si].rows.index(ofRow: c.row, order: definition.orders[c.spec]) else { return nil }
        return (si, ri, c.row)
    }

    /// `true` when two versions of one section (same spec and raw key) serve different header
    /// fields. Only `{$count}` can make them differ, so equal counts short-cut.
    private func headerChanged(_ a: SectionNode, _ b: SectionNode) -> Bool {
        if a.spec != b.spec || !codePointEqual(a.rawKey, b.rawKey) { return true }
        let n0 = a.rows.count, n1 = b.rows.count
        if n0 == n1 { return false }
        let spec = definition.sections[b.spec]
        func differs(_ t: Template?) -> Bool {
            guard let t, !t.isConstant else { return false }
            return t.renderString(key: a.rawKey, count: n0) != t.renderString(key: b.rawKey, count: n1)
        }
        return differs(spec.title) || differs(spec.icon) || differs(spec.header?.title) || differs(spec.footer?.title)
    }

    /// `true` when a row serves the same position-independent content in both versions.
    private func servesSameContent(_ a: Row, oldSpec: Int, _ b: Row, newSpec: Int) -> Bool {
        if oldSpec != newSpec && definition.sections[oldSpec].accessibilityPrefix != definition.sections[newSpec].accessibilityPrefix {
            return false
        }
        return a === b || (a.tagLength == b.tagLength && a.sameContent(as: b))
    }
}

/// One changed id's place in each version (−1: absent or in a hidden section).
private struct ChangedRow {
    var oldSection = -1, oldRow = 0, oldGap = 0
    var newSection = -1, newRow = 0, newGap = 0
    var oldValue: Row? = nil
    var newValue: Row? = nil
    var contentChanged = false
    var stays = false
}

/// Which sections are the same in both versions, and which of those moved.
struct SectionPlan {
    /// Per old section: its new index, or −1.
    var newOfOld: [Int]
    /// Per new section: its old index, or −1.
    var oldOfNew: [Int]
    /// Matched sections outside the longest run that keeps its order (normally none).
    var moved: [BatchUpdate.SectionMove] = []
    private var movedOld: Set<Int> = []

    init(old: ListSnapshot, new: ListSnapshot) { self.init(old: old.sections, new: new.sections) }

    init(old: [SectionNode], new: [SectionNode]) {
        newOfOld = Array(repeating: -1, count: old.count)
        oldOfNew = Array(repeating: -1, count: new.count)
        // Fast path: equal key sequences (the usual case) need no dictionary.
        var same = old.count == new.count
        if same {
            for i in old.indices where !SectionPlan.same(old[i], new[i]) { same = false; break }
        }
        if same {
            for i in old.indices { newOfOld[i] = i; oldOfNew[i] = i }
            return
        }
        var oldByKey: [CodePointKey: Int] = Dictionary(minimumCapacity: old.count)
        for (i, s) in old.enumerated() { oldByKey[CodePointKey(s.key)] = i }
        var order: [Int] = []   // old indexes of matched sections, in new order
        var news: [Int] = []
        for (j, s) in new.enumerated() {
            if let i = oldByKey[CodePointKey(s.key)], SectionPlan.same(old[i], s) {
                newOfOld[i] = j
                oldOfNew[j] = i
                order.append(i)
                news.append(j)
            }
        }
        var increasing = true
        for k in order.indices.dropFirst() where order[k] < order[k - 1] { increasing = false; break }
        if increasing { return }
        var stays = Array(repeating: false, count: order.count)
        for k in longestIncreasingRun(order) { stays[k] = true }
        for k in order.indices where !stays[k] {
            moved.append(BatchUpdate.SectionMove(from: order[k], to: news[k]))
            movedOld.insert(order[k])
        }
        moved.sort { $0.from < $1.from }
    }

    func isMoved(old i: Int) -> Bool { !movedOld.isEmpty && movedOld.contains(i) }

    private static func same(_ a: SectionNode, _ b: SectionNode) -> Bool {
        a.spec == b.spec && codePointEqual(a.key, b.key) && codePointEqual(a.rawKey, b.rawKey)
    }
}

/// Positions (ascending) of one longest strictly increasing subsequence of `values`.
/// O(n log n) patience sorting.
func longestIncreasingRun(_ values: [Int]) -> [Int] {
    if values.isEmpty { return [] }
    var tails: [Int] = []          // position of the last element of the best run of each length
    var previous = Array(repeating: -1, count: values.count)
    for (i, v) in values.enumerated() {
        var lo = 0, hi = tails.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if values[tails[mid]] < v { lo = mid + 1 } else { hi = mid }
        }
        if lo > 0 { previous[i] = tails[lo - 1] }
        if lo == tails.count { tails.append(i) } else { tails[lo] = i }
    }
    var out = Array(repeating: 0, count: tails.count)
    var p = tails[tails.count - 1]
    for k in stride(from: tails.count - 1, through: 0, by: -1) {
        out[k] = p
        p = previous[p]
    }
    return out
}
