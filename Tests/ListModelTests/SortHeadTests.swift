import XCTest
@testable import ListModel

/// Heads (``SortKey/head(id:)``) never contradict the order they shortcut, and searches that
/// use them find the places a plain scan finds — in both directions, for every type of value,
/// and for keys whose heads tie (strings sharing their first eight bytes, numbers with one
/// nearest double).
final class SortHeadTests: XCTestCase {
    /// Values of every type, with many equal and nearly equal heads.
    let values: [SortValue] = {
        var v: [SortValue] = [.missing, .bool(false), .bool(true), .int(0), .int(-1), .int(1), .int(.max), .int(.min),
                              .int(9_007_199_254_740_992), .int(9_007_199_254_740_993), .double(-0.0), .double(0.5),
                              .double(-1e300), .double(1e300), .double(9_007_199_254_740_992), .double(-2.5)]
        for text in ["9007199254740993.0", "1.50", "123456789012345678901234567890", "-0.0000001", "1e-400"] {
            v.append(SortValue(parse(text)))
        }
        for s in ["", "a", "ab", "abcdefgh", "abcdefgh1", "abcdefgh2", "abcdefg", "abcdefg\u{0}", "abcdefgz",
                  "Évelyn", "Evelyn T", "Evelyn Teitelbaum", "Evelyn Tei", "\u{10FFFF}", "~", "zz"] {
            v.append(.string(s))
        }
        return v
    }()

    /// Monotone: a key before another never has a larger head, for one and several sort fields
    /// in either direction, and for id-only keys (keys of one shape, as a section's rows are).
    func testHeadsNeverContradictTheOrder() {
        let ids = ["a", "b", "abcdefgh1", "abcdefgh2"]
        let one: [(SortKey, String)] = values.flatMap { v in ids.map { (SortKey.one(v), $0) } }
        let many: [(SortKey, String)] = values.flatMap { v in [(SortKey.many([v, .int(1)]), "x"), (.many([v, .int(0)]), "y")] }
        let none: [(SortKey, String)] = ids.map { (SortKey.none, $0) }
        var contradictions = 0, decided = 0
        for keys in [one, many, none] {
            for descending in [false, true] {
                let order = RowOrder(descending: keys[0].0 == .none ? [] : [descending, false])
                for (ka, ia) in keys {
                    for (kb, ib) in keys where order.compare(ka, ia, kb, ib) < 0 {
                        let (ha, hb) = (order.head(ka.head(id: ia)), order.head(kb.head(id: ib)))
                        if ha > hb { contradictions += 1 }
                        if ha < hb { decided += 1 }
                    }
                }
            }
        }
        XCTAssertEqual(contradictions, 0)
        XCTAssertGreaterThan(decided, 1_000, "heads decide most comparisons of different values")
    }

    /// ``Row/compare(_:_:order:)``, which reads the bytes a row keeps of its position (one
    /// string and the id, or the id alone) and falls back to the keys otherwise, orders every
    /// pair of rows as ``RowOrder/compare(_:_:_:_:)`` does: rows of one form and of two (a
    /// string against a number or a missing value), strings that share prefixes, hold U+0000
    /// or are longer than the head, ids equal up to their length, in both directions.
    func testRowsCompareByTheirBytesAsTheirKeysDo() {
        let ids = ["a", "ab", "abcdefgh1", "abcdefgh12", "p\u{0}", "é"]
        let keyed: [(SortKey, String)] = values.flatMap { v in ids.map { (SortKey.one(v), $0) } }
        let none: [(SortKey, String)] = ids.map { (SortKey.none, $0) }
        let many: [(SortKey, String)] = [(.many([.string("a"), .int(1)]), "x"), (.many([.string("a"), .int(0)]), "y")]
        var wrong = 0, byBytes = 0
        for keys in [keyed, none, keyed + many] {
            for descending in [false, true] {
                let order = RowOrder(descending: [descending, false])
                let rows = keys.map { Row.position($0.0, $0.1) }
                for (a, ra) in zip(keys, rows) {
                    for (b, rb) in zip(keys, rows) {
                        let c = withUnsafePointer(to: order) { Row.compare(.passUnretained(ra), .passUnretained(rb), order: $0) }
                        if c.signum() != order.compare(a.0, a.1, b.0, b.1).signum() { wrong += 1 }
                        if case .one(.string) = a.0, case .one(.string) = b.0 { byBytes += 1 }
                    }
                }
            }
        }
        XCTAssertEqual(wrong, 0)
        XCTAssertGreaterThan(byBytes, 1_000, "most pairs are compared by their bytes")
    }

    /// `lowerBound` (strict and not, from the start, from a later row and from a guess, right or
    /// wrong) against a scan of the sorted rows, over several chunks of keys whose heads mostly tie.
    func testSearchesFindWhatAScanFinds() {
        var rng = SplitMix64(seed: 5)
        let prefixes = ["abcdefgh", "abcdefgi", "Evelyn T", "Evelyn U"]
        func value() -> SortValue {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return values.randomElement(using: &rng)!
            case 1: return .int(Int64.random(in: -3...3, using: &rng))
            default: return .string(prefixes.randomElement(using: &rng)! + String(Int.random(in: 0..<50, using: &rng)))
            }
        }
        for descending in [false, true] {
            let order = RowOrder(descending: [descending])
            var keys: [(SortKey, String)] = (0..<3_000).map { (.one(value()), "r\($0)") }
            keys.sort { order.compare($0.0, $0.1, $1.0, $1.1) < 0 }
            let seq = RowSequence(sorted: ContiguousArray(keys.map { Row.forTest(id: $0.1, sortKey: $0.0) }))
            XCTAssertGreaterThan(seq.chunkCount, 20)
            var wrong = 0
            for _ in 0..<2_000 {
                let key = SortKey.one(value()), id = "r\(Int.random(in: 0..<3_100, using: &rng))"
                let strictly = Bool.random(using: &rng)
                let scan = keys.firstIndex { k in
                    let c = order.compare(k.0, k.1, key, id)
                    return strictly ? c > 0 : c >= 0
                } ?? keys.count
                let start = Int.random(in: 0...scan, using: &rng)
                if seq.lowerBound(of: Row.position(key, id), order: order, strictly: strictly) != scan { wrong += 1 }
                if seq.lowerBound(of: Row.position(key, id), order: order, strictly: strictly, from: start) != scan { wrong += 1 }
                // A guess right, near on either side, far, past either end, none.
                let guesses: [Int?] = [scan, scan - 1, scan + 1, scan - 70, scan + 70, Int.random(in: 0...keys.count, using: &rng), -3,
                                       keys.count + 2, nil]
                withUnsafePointer(to: order) { order in
                    seq.withRowsView { rows in
                        for guess in guesses where rows.lowerBound(key, id, order: order, strictly: strictly, guess: guess) != scan {
                            wrong += 1
                        }
                    }
                }
            }
            XCTAssertEqual(wrong, 0, descending ? "descending" : "ascending")
        }
    }

    /// A row is found by reference where it is, among rows whose keys and heads tie, and not
    /// before `from`; a row equal to it but not it is not found.
    func testRowsAreFoundByReference() {
        var rng = SplitMix64(seed: 11)
        let names = ["Evelyn Turing", "Evelyn Turing", "Evelyn Turner", "Ada"]
        for descending in [false, true] {
            let order = RowOrder(descending: [descending])
            var keys: [(SortKey, String)] = (0..<2_000).map { (.one(.string(names.randomElement(using: &rng)!)), "r\($0)") }
            keys.sort { order.compare($0.0, $0.1, $1.0, $1.1) < 0 }
            let rows = keys.map { Row.forTest(id: $0.1, sortKey: $0.0) }
            let seq = RowSequence(sorted: ContiguousArray(rows))
            XCTAssertGreaterThan(seq.chunkCount, 10)
            var wrong = 0
            for (i, row) in rows.enumerated() where seq.index(ofRow: row, order: order) != i { wrong += 1 }
            XCTAssertEqual(wrong, 0, descending ? "descending" : "ascending")
            let twin = Row.forTest(id: keys[700].1, sortKey: keys[700].0)
            XCTAssertNil(seq.index(ofRow: twin, order: order))
            XCTAssertEqual(seq.lowerBound(of: twin, order: order, strictly: false), 700)
            XCTAssertEqual(seq.index(ofRow: rows[700], order: order, from: 650), 700)
            XCTAssertNil(seq.index(ofRow: rows[700], order: order, from: 701))
        }
    }
}
