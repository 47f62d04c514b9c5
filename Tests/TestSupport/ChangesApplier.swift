import Foundation

/// The reference semantics of a `changes` answer (UIKit `performBatchUpdates`), a Swift port of
/// the project's original Python applier. It reads the answer's JSON text, so it checks the
/// written answer, not a Swift value. It knows nothing of `ListModel`: outlines are plain keys and ids.
///
/// An outline is `[(key, rows)]` as seen through one view (hidden sections have no rows).
/// Deletes and updates address the old outline, inserts the new one, moves go old → new. Rows of
/// inserted sections are not listed; they come from `new` when given, which is then also the
/// expected result.
///
/// Where the Python would crash (`StopIteration`, `IndexError`) on a malformed answer, this
/// throws ``Invalid`` instead; everywhere else it follows the Python step by step. An answer
/// whose members have the wrong JSON types is ``Invalid`` too.
///
/// Content mode (an extension for tests of `updated`): rows are `"id|content"` strings; a row
/// listed in `updated`, or moved with `"updated": true`, takes the item at its new position in
/// `new`, every other surviving row keeps its old item. Then an unflagged content change makes
/// the result differ from `new`.
public enum ChangesApplier {
    /// Why an answer cannot be applied (or does not give the expected outline).
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
        public init(_ d: String) { description = d }
    }

    /// One section of an outline: its key and its visible rows' ids (`nil`: not known).
    public struct Section: Equatable, CustomStringConvertible {
        public var key: String?
        public var rows: [String?]
        public init(key: String?, rows: [String?]) {
            self.key = key
            self.rows = rows
        }
        public var description: String { "\(key ?? "nil"):\(rows.map { $0 ?? "nil" })" }
    }

    /// A row's index path.
    public struct Path: Hashable, Decodable {
        public let section: Int
        public let row: Int
    }

    /// Applies the `changes` answer `changes` (its JSON text) to `old`. With `new`, the result
    /// must equal it (else ``Invalid``) and rows of inserted sections are taken from it.
    public static func apply(old: [Section], changes: [UInt8], new: [Section]? = nil, contentMode: Bool = false) throws -> [Section] {
        let answer: Answer
        do {
            answer = try JSONDecoder().decode(Answer.self, from: Data(changes))
        } catch {
            throw Invalid("not a changes answer: \(error)")
        }
        if answer.reload == true {
            guard let new else { throw Invalid("reload answer: nothing to apply") }
            return new
        }
        guard let secs = answer.sections, let rows = answer.rows else { throw Invalid("missing sections/rows") }
        let sDeletedList = secs.deleted
        let sInsertedList = secs.inserted
        let sUpdatedList = secs.updated
        let sDel = Set(sDeletedList)
        var sMoves: [Int: Int] = [:]
        var sMoveOrder: [Int] = []   // dict insertion order, as Python iterates
        for m in secs.moved {
            let f = m.from, t = m.to
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

        let rDel = rows.deleted
        let rUpd = rows.updated
        let rIns = rows.inserted
        let rMoves: [(Path, Path, Bool)] = rows.moved.map { ($0.from, $0.to, $0.updated ?? false) }
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
                    guard let (item, upd) = k.next() else { throw Invalid("section \(n) ran out of surviving rows") }
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

    // MARK: The answer's JSON

    private struct Answer: Decodable {
        let reload: Bool?
        let sections: SectionChanges?
        let rows: RowChanges?
    }

    private struct SectionChanges: Decodable {
        struct Move: Decodable { let from: Int, to: Int }
        let deleted: [Int], inserted: [Int], updated: [Int], moved: [Move]
    }

    private struct RowChanges: Decodable {
        struct Move: Decodable {
            let from: Path, to: Path
            let updated: Bool?
        }
        let deleted: [Path], inserted: [Path], updated: [Path], moved: [Move]
    }
}
