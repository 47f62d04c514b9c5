import XCTest
@testable import ListModel

/// A Swift port of `shared/tools/apply_changes.py`, the reference semantics of a `changes`
/// answer (SPEC §4.3, UIKit `performBatchUpdates`). It reads the answer as JSON, so it checks
/// the written answer, not just the Swift value.
///
/// An outline is `[(key, rows)]` as seen through one view (hidden sections have no rows).
/// Deletes and updates address the old outline, inserts the new one, moves go old → new. Rows of
/// inserted sections are not listed; they come from `new` when given, which is then also the
/// expected result.
///
/// Where the Python would crash (`StopIteration`, `IndexError`) on a malformed answer, this
/// throws ``Invalid`` instead; everywhere else it follows the Python step by step.
///
/// Content mode (an extension for tests of `updated`): rows are `"id|content"` strings; a row
/// listed in `updated`, or moved with `"updated": true`, takes the item at its new position in
/// `new`, every other surviving row keeps its old item. Then an unflagged content change makes
/// the result differ from `new`.
enum ChangesApplier {
    struct Invalid: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    struct Section: Equatable, CustomStringConvertible {
        var key: String?
        var rows: [String?]
        var description: String { "\(key ?? "nil"):\(rows.map { $0 ?? "nil" })" }
    }

    typealias Path = ListIndexPath

    static func apply(old: [Section], changes: JSONValue, new: [Section]? = nil, contentMode: Bool = false) throws -> [Section] {
        if changes["reload"]?.boolValue == true {
            guard let new else { throw Invalid("reload answer: nothing to apply") }
            return new
        }
        guard let secs = changes["sections"], let rows = changes["rows"] else { throw Invalid("missing sections/rows") }
        let sDeletedList = try ints(secs["deleted"])
        let sInsertedList = try ints(secs["inserted"])
        let sUpdatedList = try ints(secs["updated"])
        let sDel = Set(sDeletedList)
        var sMoves: [Int: Int] = [:]
        var sMoveOrder: [Int] = []   // dict insertion order, as Python iterates
        for m in try array(secs["moved"]) {
            let f = try int(m["from"]), t = try int(m["to"])
            if sMoves[f] == nil { sMoveOrder.append(f) }
            sMoves[f] = t
        }
        let sIns = Set(sInsertedList)
        if !sDel.isDisjoint(with: sMoves.keys) { throw Invalid("a section is both deleted and moved from") }
        if !sIns.isDisjoint(with: sMoves.values) { throw Invalid("a section is both inserted and moved to") }
        if !Set(sUpdatedList).isDisjoint(with: sDel.union(sMoves.keys)) { throw Invalid("a section is updated and also deleted or moved") }
        for i in Array(sDel) + sMoveOrder + sUpdatedList where !(0 <= i && i < old.count) {
            throw Invalid("old section index \(i) out of range")
        }
        let survivors = (0..<old.count).filter { !sDel.contains($0) && sMoves[$0] == nil }
        let count = survivors.count + sMoves.count + sIns.count
        for i in Array(sIns) + sMoveOrder.map({ sMoves[$0]! }) where !(0 <= i && i < count) {
            throw Invalid("new section index \(i) out of range")
        }
        // new index -> old index (nil for inserted)
        var placed: [Int: Int?] = [:]
        for f in sMoveOrder { placed[sMoves[f]!] = .some(f) }
        for i in sIns { placed[i] = .some(nil) }
        var it = survivors.makeIterator()
        var layout: [Int?] = []
        for n in 0..<count {
            let o: Int?
            if let p = placed[n] { o = p } else {
                guard let s = it.next() else { throw Invalid("new section index filled twice (moves to one index)") }
                o = s
            }
            layout.append(o)
        }

        let rDel = try paths(rows["deleted"])
        let rUpd = try paths(rows["updated"])
        let rIns = try paths(rows["inserted"])
        var rMoves: [(Path, Path, Bool)] = []
        for m in try array(rows["moved"]) {
            rMoves.append((try path(m["from"]), try path(m["to"]), m["updated"]?.boolValue ?? false))
        }
        for p in rDel + rUpd + rMoves.map({ $0.0 }) {
            if sDel.contains(p.section) { throw Invalid("row (\(p.section),\(p.row)) listed inside deleted section \(p.section)") }
            if !(0 <= p.section && p.section < old.count && 0 <= p.row && p.row < old[p.section].rows.count) {
                throw Invalid("old index path (\(p.section),\(p.row)) out of range")
            }
        }
        for p in rIns + rMoves.map({ $0.1 }) {
            if !(0 <= p.section && p.section < count) { throw Invalid("new index path (\(p.section),\(p.row)) out of range") }
            if layout[p.section] == nil { throw Invalid("row (\(p.section),\(p.row)) listed inside inserted section \(p.section)") }
        }
        let removed = Set(rDel).union(rMoves.map { $0.0 })
        if removed.count != rDel.count + rMoves.count { throw Invalid("an old index path is deleted or moved twice") }
        let updatedSet = Set(rUpd)
        if !updatedSet.isDisjoint(with: removed) { throw Invalid("an updated row is also deleted or moved") }

        enum Arrival { case insert, move(String?, Bool) }
        var arriving: [Path: Arrival] = [:]
        for p in rIns { arriving[p] = .insert }
        for (f, t, upd) in rMoves {
            if arriving[t] != nil { throw Invalid("new index path (\(t.section), \(t.row)) filled twice") }
            arriving[t] = .move(old[f.section].rows[f.row], upd)
        }

        func newItem(_ n: Int, _ r: Int) -> String?? {
            guard let new else { return nil }
            guard n < new.count else { return .some(nil) }   // Python: IndexError → result differs below
            return r < new[n].rows.count ? .some(new[n].rows[r]) : .some(nil)
        }

        var result: [Section] = []
        for (n, o) in layout.enumerated() {
            guard let o else {
                if let new {
                    guard n < new.count else { throw Invalid("result differs from NEW: more sections than NEW") }
                    result.append(Section(key: new[n].key, rows: new[n].rows))
                } else {
                    result.append(Section(key: nil, rows: []))
                }
                continue
            }
            var keep: [(String?, Bool)] = []   // (item, updated)
            for (r, rid) in old[o].rows.enumerated() where !removed.contains(Path(section: o, row: r)) {
                keep.append((rid, updatedSet.contains(Path(section: o, row: r))))
            }
            let incoming = arriving.keys.filter { $0.section == n }.map(\.row).sorted()
            let size = keep.count + incoming.count
            if let last = incoming.last, last >= size { throw Invalid("new row index \(last) out of range in section \(n)") }
            var out: [String?] = []
            var k = keep.makeIterator()
            for r in 0..<size {
                var rid: String?
                switch arriving[Path(section: n, row: r)] {
                case .insert?:
                    rid = newItem(n, r) ?? nil
                case .move(let item, let upd)?:
                    rid = item
                    if contentMode && upd, let fresh = newItem(n, r) { rid = fresh }
                case nil:
                    let (item, upd) = k.next()!
                    rid = item
                    if contentMode && upd, let fresh = newItem(n, r) { rid = fresh }
                }
                out.append(rid)
            }
            result.append(Section(key: old[o].key, rows: out))
        }
        if let new, result != new {
            throw Invalid("result differs from NEW: \(String(describing: result).prefix(400)) != \(String(describing: new).prefix(400))")
        }
        return result
    }

    // MARK: JSON access

    private static func array(_ v: JSONValue?) throws -> [JSONValue] {
        guard let a = v?.arrayValue else { throw Invalid("expected an array") }
        return a
    }

    private static func int(_ v: JSONValue?) throws -> Int {
        guard let i = v?.intValue else { throw Invalid("expected an integer") }
        return Int(i)
    }

    private static func ints(_ v: JSONValue?) throws -> [Int] { try array(v).map { try int($0) } }

    private static func path(_ v: JSONValue?) throws -> Path {
        Path(section: try int(v?["section"]), row: try int(v?["row"]))
    }

    private static func paths(_ v: JSONValue?) throws -> [Path] { try array(v).map { try path($0) } }
}

extension ChangesApplier {
    /// The answer JSON for an update (`nil`: reload), as the service writes it.
    static func answer(_ update: BatchUpdate?, from: Int64 = 1, to: Int64 = 2) -> JSONValue {
        var w = JSONWriter()
        ListSnapshot.writeChangesAnswer(update, list: "l", from: from, to: to, into: &w)
        return parse(text(w))
    }

    /// Applies an update value (through its JSON).
    static func apply(old: [Section], update: BatchUpdate?, new: [Section]? = nil, contentMode: Bool = false) throws -> [Section] {
        try apply(old: old, changes: answer(update), new: new, contentMode: contentMode)
    }
}

extension ListSnapshot {
    /// The outline through a view: each section's key and its rows' ids (none when hidden).
    /// With `content`, rows are `"id|<served content>"` (for ``ChangesApplier`` content mode).
    func changesOutline(view: ViewState, content: Bool = false) -> [ChangesApplier.Section] {
        (0..<sectionCount).map { s in
            let info = section(at: s)!
            if view.isHidden(info.key) { return ChangesApplier.Section(key: info.key, rows: []) }
            return ChangesApplier.Section(key: info.key, rows: (0..<info.totalRowCount).map { r in
                let loc = location(section: s, row: r, view: view)!
                return content ? "\(loc.rowID)|\(servedContent(loc))" : loc.rowID
            })
        }
    }

    /// A row's served JSON minus its position-dependent members (index path, tag location,
    /// accessibility identifier suffixes) — independent of the model's own content test.
    func servedContent(_ loc: RowLocation) -> String {
        var w = JSONWriter()
        writeRow(loc, into: &w)
        guard case .object(var o) = parse(text(w)) else { return "" }
        o["indexPath"] = nil
        if case .object(let tag)? = o["tag"] { o["tag"] = tag["length"] }
        if case .string(let acc)? = o["accessibilityIdentifier"] {
            // Strip trailing `_<digits>` suffixes (section/row): the prefix is content.
            var s = Substring(acc)
            let spec = definition.sections[sections[loc.indexPath.section].spec]
            if let a = spec.accessibility {
                if a.includesRow, let u = s.lastIndex(of: "_") { s = s[..<u] }
                if a.includesSection, let u = s.lastIndex(of: "_") { s = s[..<u] }
            }
            o["accessibilityIdentifier"] = .string(String(s))
        }
        var out = JSONWriter()
        out.value(.object(o))
        return String(decoding: out.bytes, as: UTF8.self)
    }
}
