/// Applies a batch update to a snapshot with UIKit `performBatchUpdates` semantics, taking the
/// sections' new fields from the outline at the update's `to` version. Rows it cannot know
/// (inserted, updated, or whose positional fields cannot be derived) are marked `fetch`.
struct SnapshotApplier {
    /// The update does not fit the snapshot (the caller reloads).
    struct Mismatch: Error { let why: String }

    let pageSize: Int

    /// The snapshot after an update, and where its waiting placeholders (not loaded, marked
    /// `fetch`, and not inserted) were before it: once loaded, they are announced as updated.
    struct Applied {
        var snapshot: ListSnapshot
        var waiting: [ListIndexPath: (from: ListIndexPath, moved: Bool)] = [:]
    }

    func apply(_ changes: Changes, to old: ListSnapshot, outline: Outline) throws(Mismatch) -> Applied {
        let secs = changes.sections, rows = changes.rows
        let sDel = Set(secs.deleted), sIns = Set(secs.inserted)
        var sMoves: [Int: Int] = [:]
        for m in secs.moved { sMoves[m.from] = m.to }
        guard sDel.isDisjoint(with: sMoves.keys), sIns.isDisjoint(with: sMoves.values) else { throw Mismatch(why: "section listed twice") }
        for i in Array(sDel) + Array(sMoves.keys) + secs.updated where !old.sections.indices.contains(i) {
            throw Mismatch(why: "old section \(i) out of range")
        }
        let survivors = old.sections.indices.filter { !sDel.contains($0) && sMoves[$0] == nil }
        let count = survivors.count + sMoves.count + sIns.count
        guard count == outline.sections.count else { throw Mismatch(why: "section count \(count) != \(outline.sections.count)") }
        var placed: [Int: Int?] = [:]
        for (f, t) in sMoves { placed[t] = .some(f) }
        for i in sIns { placed[i] = .some(nil) }
        var it = survivors.makeIterator()
        var layout: [Int?] = []
        for n in 0..<count {
            if let p = placed[n] { layout.append(p) } else if let s = it.next() { layout.append(s) } else { throw Mismatch(why: "layout") }
        }

        let moves = rows.moved.map { ($0.from, $0.to, $0.updated ?? false) }
        for p in rows.deleted + rows.updated + moves.map(\.0) {
            guard !sDel.contains(p.section), old.sections.indices.contains(p.section),
                  old.sections[p.section].slots.indices.contains(p.row) else { throw Mismatch(why: "old row \(p) out of range") }
        }
        for p in rows.inserted + moves.map(\.1) {
            guard layout.indices.contains(p.section), layout[p.section] != nil else { throw Mismatch(why: "new row \(p) out of range") }
        }
        let removed = Set(rows.deleted).union(moves.map(\.0))
        guard removed.count == rows.deleted.count + moves.count else { throw Mismatch(why: "row removed twice") }
        let updated = Set(rows.updated)
        enum Arrival { case insert, move(ListSnapshot.Slot, from: ListIndexPath) }
        var arriving: [ListIndexPath: Arrival] = [:]
        for p in rows.inserted { arriving[p] = .insert }
        for (f, t, upd) in moves {
            guard arriving[t] == nil else { throw Mismatch(why: "new row \(t) filled twice") }
            var slot = old.sections[f.section].slots[f.row]
            // Only a loaded row is fetched again: a placeholder stays one (a batch that changed
            // 900 rows nobody scrolled to sent 900 requests, every other operation waiting).
            if upd && slot.row != nil { slot.fetch = true }
            arriving[t] = .move(slot, from: f)
        }

        var result = old
        var waiting: [ListIndexPath: (from: ListIndexPath, moved: Bool)] = [:]
        result.version = outline.version
        result.title = outline.title
        result.sections = []
        for (n, o) in layout.enumerated() {
            let section = outline.sections[n]
            guard let o else {
                let slots = (0..<section.rowCount).map { ListSnapshot.Slot(row: nil, fetch: $0 < pageSize) }
                result.sections.append(.init(section: section, slots: slots))
                continue
            }
            let before = old.sections[o]
            guard before.section.key == section.key else { throw Mismatch(why: "section \(n) is \(section.key), not \(before.section.key)") }
            guard before.section.hidden == section.hidden else { throw Mismatch(why: "section \(section.key) was shown or hidden elsewhere") }
            // Kept rows, with their old row index (a row still at its old index with nothing
            // changed before it is "clean": its tag moves only with the section's first tag). An
            // updated row may have changed its tag length, so the rows after it are not clean.
            var keep: [(ListSnapshot.Slot, Int)] = []
            for (r, slot) in before.slots.enumerated() where !removed.contains(ListIndexPath(section: o, row: r)) {
                var slot = slot
                if updated.contains(ListIndexPath(section: o, row: r)) && slot.row != nil { slot.fetch = true }
                keep.append((slot, r))
            }
            let size = keep.count + arriving.keys.filter { $0.section == n }.count
            guard size == section.rowCount else { throw Mismatch(why: "section \(section.key) has \(size) rows, not \(section.rowCount)") }
            var slots: [ListSnapshot.Slot] = []
            var clean: [Bool] = []
            var k = keep.makeIterator()
            var stillClean = true
            for r in 0..<size {
                var updatedHere = false
                switch arriving[ListIndexPath(section: n, row: r)] {
                case .insert?:
                    slots.append(.init(row: nil, fetch: true))
                    stillClean = false
                case .move(let slot, let from)?:
                    if slot.row == nil && slot.fetch { waiting[ListIndexPath(section: n, row: r)] = (from, true) }
                    slots.append(slot)
                    stillClean = false
                case nil:
                    guard case (var slot, let oldIndex)? = k.next() else { throw Mismatch(why: "section \(n) ran out of rows") }
                    stillClean = stillClean && oldIndex == r
                    // A clean row's tag moves with its section's first tag.
                    if stillClean { slot.row?.tag.location += section.firstTag - before.section.firstTag }
                    if slot.row == nil && slot.fetch { waiting[ListIndexPath(section: n, row: r)] = (ListIndexPath(section: o, row: oldIndex), false) }
                    slots.append(slot)
                    updatedHere = updated.contains(ListIndexPath(section: o, row: oldIndex))
                }
                clean.append(stillClean)
                if updatedHere { stillClean = false }
            }
            markUnderivable(&slots, clean: clean, section: n, moved: n != o)
            result.sections.append(.init(section: section, slots: slots))
        }
        return Applied(snapshot: result, waiting: waiting)
    }

    /// Marks for fetching the loaded rows whose tag location or accessibility identifier cannot be
    /// worked out here: after a placeholder whose tag length is unknown, or whose identifier
    /// carries an index path that changed when the section does not say how it is built.
    private func markUnderivable(_ slots: inout [ListSnapshot.Slot], clean: [Bool], section n: Int, moved: Bool) {
        var anchored = true
        for r in slots.indices {
            if slots[r].fetch { anchored = true; continue }
            guard let row = slots[r].row else { anchored = false; continue }
            let pathChanged = row.indexPath != ListIndexPath(section: n, row: r)
            if clean[r] {
                anchored = true
                if moved && row.accessibilityIdentifier != nil { slots[r].fetch = true }
                continue
            }
            if !anchored || (pathChanged && row.accessibilityIdentifier != nil) { slots[r].fetch = true; anchored = true }
        }
    }

    /// Sets every loaded row's positional fields from its place (rows just fetched are right already).
    /// A row after a placeholder keeps its location: the applier has shifted it already (a clean
    /// row) or marked it for fetching.
    static func reposition(_ snapshot: inout ListSnapshot, fresh: Set<ListIndexPath>) {
        for n in snapshot.sections.indices {
            let section = snapshot.sections[n].section
            var location: Int? = section.firstTag
            for r in snapshot.sections[n].slots.indices {
                let path = ListIndexPath(section: n, row: r)
                guard var row = snapshot.sections[n].slots[r].row else { location = nil; continue }
                if !fresh.contains(path) {
                    if let location { row.tag.location = location }
                    if row.indexPath != path, let template = section.accessibility, row.accessibilityIdentifier != nil {
                        row.accessibilityIdentifier = template.rowIdentifier(at: path)
                    }
                    row.indexPath = path
                    snapshot.sections[n].slots[r].row = row
                }
                location = row.tag.location + row.tag.length
            }
        }
    }
}
