import XCTest
@testable import ListModel

/// Chunk copies borrow rows from their base instead of retaining them (see ``RowChunk``): no row
/// that a kept version holds is ever freed, every row is freed once no version holds it (through
/// its chunks or a chunk's base), and the slot bits that say which rows a chunk retains move with
/// its rows.
final class BorrowedRowsTests: XCTestCase {
    let d = definition(#"{"sections":[{"source":"a","key":"k","sortBy":[{"field":"v"}],"row":{"tagLength":1}}]}"#)

    /// A weak reference to a row, to see whether it is still alive without touching it.
    final class Watch { weak var row: Row?; init(_ r: Row) { row = r } }

    /// Versions changed row by row and by merges, some of them dropped along the way: after each
    /// step, every row of every kept version is alive (and its ids read as the model says); once
    /// all versions are gone, so is every row.
    func testRowsLiveExactlyAsLongAsAVersionHoldsThem() {
        let order = d.orders[0]
        var rng = SplitMix64(seed: 3)
        var watches: [ObjectIdentifier: Watch] = [:]
        func make(_ id: Int, _ v: Int) -> Row {
            let r = Row.forTest(id: "r\(id)", sortKey: .one(.int(Int64(v))))
            watches[ObjectIdentifier(r)] = Watch(r)
            return r
        }
        /// The row objects of a sequence, in order (read without keeping them).
        func objects(_ s: RowSequence) -> [ObjectIdentifier] {
            s.withRowsView { v in (0..<v.count).map { i in v.withRow(at: i) { ObjectIdentifier($0) } } }
        }
        var model: [Int: Int] = [:]
        for id in 0..<6_000 { model[id] = Int.random(in: 0..<3_000, using: &rng) }
        var seq = RowSequence(sorted: ContiguousArray(model.sorted { a, b in
            order.compare(.one(.int(Int64(a.value))), "r\(a.key)", .one(.int(Int64(b.value))), "r\(b.key)") < 0
        }.map { make($0.key, $0.value) }))
        var kept: [(RowSequence, [ObjectIdentifier])] = []
        for step in 0..<30 {
            kept.append((seq, objects(seq)))
            for _ in 0..<300 {
                let id = Int.random(in: 0..<8_000, using: &rng)
                if let v = model[id] {
                    let i = seq.index(of: .one(.int(Int64(v))), "r\(id)", order: order)!
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: XCTAssertEqual(seq.remove(at: i).id, "r\(id)"); model[id] = nil
                    case 1: seq.replace(at: i, with: make(id, v))
                    default:
                        seq.remove(at: i)
                        let w = Int.random(in: 0..<3_000, using: &rng)
                        seq.insert(make(id, w), order: order)
                        model[id] = w
                    }
                } else {
                    let v = step % 3 == 0 ? 1_500 : Int.random(in: 0..<3_000, using: &rng)   // some chunks fill and split
                    seq.insert(make(id, v), order: order)
                    model[id] = v
                }
            }
            if step % 4 == 3 {
                let present = Array(model.keys.shuffled(using: &rng).prefix(200))
                let removed = present.map { seq.index(of: .one(.int(Int64(model[$0]!))), "r\($0)", order: order)! }.sorted()
                for id in present { model[id] = nil }
                seq.merge(removing: removed, inserting: [], order: order)
            }
            // Drop some older versions (never the newest kept one).
            let drop = kept.count > 3 ? Set((0..<(kept.count - 1)).filter { _ in Int.random(in: 0..<3, using: &rng) == 0 }) : []
            kept = kept.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
            var alive = Set(objects(seq))
            for (_, rows) in kept { alive.formUnion(rows) }
            XCTAssertEqual(alive.filter { watches[$0]?.row == nil }.count, 0, "step \(step): rows of kept versions freed")
            XCTAssertEqual(seq.count, model.count)
            for (version, rows) in kept { XCTAssertEqual(objects(version), rows, "step \(step): a kept version changed") }
        }
        kept.removeAll()
        seq = RowSequence()
        XCTAssertEqual(watches.values.filter { $0.row != nil }.count, 0, "rows outliving every version")
    }

    /// A copy of a shared chunk retains none of the rows it copies; a copy of that copy retains
    /// only the rows the first one took in, and takes every row over when those outnumber
    /// √(2 × borrowed) or it borrows fewer than half of its base's rows.
    func testCopiesBorrowFromOneBase() {
        let rows = (0..<100).map { Row.forTest(id: "r\($0)") }
        let a = RowChunk.make(rows)
        let b = a.copy(capacity: 120)
        XCTAssertEqual(b.borrowedCount, 100)
        b.insert(Row.forTest(id: "new"), at: 100)
        let c = b.copy(capacity: 120)
        XCTAssertEqual(c.borrowedCount, 100, "the same base, one level")
        let many = b.copy(capacity: 120)
        for k in 0..<13 { many.insert(Row.forTest(id: "n\(k)"), at: 0) }
        XCTAssertEqual(many.copy(capacity: 120).borrowedCount, 100, "14 owned, 14² ≤ 2 × 100: the base kept")
        many.insert(Row.forTest(id: "n13"), at: 0)
        XCTAssertEqual(many.copy(capacity: 120).borrowedCount, 0, "15 owned, 15² > 2 × 100: taken over")
        for _ in 0..<60 { _ = c.remove(at: 0) }
        let d = c.copy(capacity: 60)
        XCTAssertEqual(d.borrowedCount, 0, "40 of 100 borrowed: taken over")
        XCTAssertEqual(d.withUnretainedRows { $0.map { $0._withUnsafeGuaranteedRef { $0.id } } }, (60..<100).map { "r\($0)" } + ["new"])
    }

    /// Slot bits against an array of flags, through inserts and removals across word boundaries.
    func testSlotBitsFollowTheirSlots() {
        var rng = SplitMix64(seed: 17)
        var bits = SlotBits.none
        var flags: [Bool] = []
        var wrong = 0
        for _ in 0..<20_000 {
            if flags.count < SlotBits.capacity && (flags.isEmpty || Bool.random(using: &rng)) {
                let j = Int.random(in: 0...flags.count, using: &rng), v = Bool.random(using: &rng)
                bits.insert(v, at: j)
                flags.insert(v, at: j)
            } else {
                let j = Int.random(in: 0..<flags.count, using: &rng)
                if bits.remove(at: j) != flags.remove(at: j) { wrong += 1 }
            }
            if bits.count(in: flags.count) != flags.filter({ $0 }).count { wrong += 1 }
        }
        for (i, f) in flags.enumerated() where bits[i] != f { wrong += 1 }
        XCTAssertEqual(wrong, 0)
        XCTAssertEqual(SlotBits.first(130).count(in: 256), 130)
    }
}
