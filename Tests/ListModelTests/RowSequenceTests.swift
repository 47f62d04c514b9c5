import XCTest
@testable import ListModel

/// A ``RowSequence`` of many directory pages, changed row by row and by merges, against a plain
/// sorted array: same rows in the same order, same tag offsets, and every earlier version left
/// as it was (pages and chunks are shared, never changed under a reader).
final class RowSequenceTests: XCTestCase {
    let d = definition(#"{"sections":[{"source":"a","key":"k","sortBy":[{"field":"v"}],"row":{"tagLength":2}}]}"#)

    /// A row with sort value `v` and `tags` tags (0…3).
    func row(_ id: Int, _ v: Int, tags: Int) -> Row { .forTest(id: "r\(id)", sortKey: .one(.int(Int64(v))), tags: tags) }

    /// The model's rows, ordered as the sequence orders them.
    func check(_ seq: RowSequence, _ model: [(id: Int, v: Int, tags: Int)], _ message: String) {
        let order = d.orders[0]
        let sorted = model.sorted { a, b in a.v != b.v ? a.v < b.v : "r\(a.id)".utf8.lexicographicallyPrecedes("r\(b.id)".utf8) }
        XCTAssertEqual(seq.count, sorted.count, message)
        XCTAssertEqual(seq.tagCount, sorted.reduce(0) { $0 + $1.tags }, message)
        let ids = seq.withRowsView { v in (0..<v.count).map { i in v.withRow(at: i) { $0.id } } }
        XCTAssertEqual(ids, sorted.map { "r\($0.id)" }, message)
        var tag = 0
        for (i, r) in sorted.enumerated() {
            if i % 7 == 0 {
                XCTAssertEqual(seq.tagOffset(ofRow: i), tag, "\(message): tag offset of row \(i)")
                if r.tags > 0 { XCTAssertEqual(seq.row(containingTag: tag + r.tags - 1)?.index, i, "\(message): tag \(tag)") }
                XCTAssertEqual(seq.index(of: .one(.int(Int64(r.v))), "r\(r.id)", order: order), i, message)
            }
            tag += r.tags
        }
        XCTAssertNil(seq.row(containingTag: tag), message)
        for c in seq.chunks { XCTAssertTrue(c.count > 0 && c.count <= RowSequence.maxChunk, message) }
    }

    func testManyPagesChangedRowByRowAndByMergesKeepEveryVersion() {
        let order = d.orders[0]
        var rng = SplitMix64(seed: 11)
        var model: [Int: (v: Int, tags: Int)] = [:]
        for id in 0..<12_000 { model[id] = (Int.random(in: 0..<5_000, using: &rng), Int.random(in: 0...3, using: &rng)) }
        func entries() -> [(id: Int, v: Int, tags: Int)] { model.map { ($0.key, $0.value.v, $0.value.tags) } }
        let initial = entries().sorted { a, b in a.v != b.v ? a.v < b.v : "r\(a.id)".utf8.lexicographicallyPrecedes("r\(b.id)".utf8) }
        var seq = RowSequence(sorted: ContiguousArray(initial.map { row($0.id, $0.v, tags: $0.tags) }))
        XCTAssertGreaterThan(seq.chunkCount, 3 * RowSequence.pageSize, "several directory pages")
        check(seq, entries(), "built")

        var versions: [(RowSequence, [(id: Int, v: Int, tags: Int)])] = []
        for step in 0..<12 {
            versions.append((seq, entries()))
            // Row by row: inserts (some into full chunks), replacements, and removals that
            // empty or merge chunks (more removals in the later steps).
            for _ in 0..<400 {
                let id = Int.random(in: 0..<16_000, using: &rng)
                let op = Int.random(in: 0..<10, using: &rng)
                if let old = model[id] {
                    let i = seq.index(of: .one(.int(Int64(old.v))), "r\(id)", order: order)!
                    if op < 3 + step / 2 {
                        XCTAssertEqual(seq.remove(at: i).id, "r\(id)")
                        model[id] = nil
                    } else {
                        let tags = Int.random(in: 0...3, using: &rng)
                        seq.replace(at: i, with: row(id, old.v, tags: tags))
                        model[id] = (old.v, tags)
                    }
                } else if step < 8 {
                    // Clustered values fill and split chunks.
                    let v = Int.random(in: 0..<3, using: &rng) == 0 ? 2_500 : Int.random(in: 0..<5_000, using: &rng)
                    let tags = Int.random(in: 0...3, using: &rng)
                    seq.insert(row(id, v, tags: tags), order: order)
                    model[id] = (v, tags)
                }
            }
            check(seq, entries(), "step \(step), row by row")
            // A merge: a sorted batch of removals and inserts.
            let present = model.keys.shuffled(using: &rng).prefix(300)
            var removed: [Int] = present.map { id in seq.index(of: .one(.int(Int64(model[id]!.v))), "r\(id)", order: order)! }
            removed.sort()
            for id in present { model[id] = nil }
            var inserted: [(id: Int, v: Int, tags: Int)] = []
            for id in (20_000 + step * 1_000)..<(20_000 + step * 1_000 + 250) {
                let e = (id: id, v: Int.random(in: 0..<5_000, using: &rng), tags: Int.random(in: 0...3, using: &rng))
                inserted.append(e)
                model[id] = (e.v, e.tags)
            }
            inserted.sort { a, b in a.v != b.v ? a.v < b.v : "r\(a.id)".utf8.lexicographicallyPrecedes("r\(b.id)".utf8) }
            seq.merge(removing: removed, inserting: ContiguousArray(inserted.map { row($0.id, $0.v, tags: $0.tags) }), order: order)
            check(seq, entries(), "step \(step), merged")
        }
        for (k, (old, rows)) in versions.enumerated() { check(old, rows, "version \(k) after later changes") }
    }

    /// A change to one row of a shared sequence copies one chunk, and leaves every other chunk shared.
    func testOneChangeCopiesOneChunk() {
        let order = d.orders[0]
        let seq = RowSequence(sorted: ContiguousArray((0..<10_000).map { row($0, $0, tags: 1) }))
        var next = seq
        next.replace(at: 5_000, with: row(5_000, 5_000, tags: 3))
        next.insert(row(20_000, 5_001, tags: 1), order: order)
        let before = Set(seq.chunks.map(ObjectIdentifier.init))
        XCTAssertEqual(next.chunks.filter { !before.contains(ObjectIdentifier($0)) }.count, 1)
        XCTAssertEqual(next.count, 10_001)
        XCTAssertEqual(next.tagCount, 10_003)
        XCTAssertEqual(seq.tagCount, 10_000)
    }

    /// The first change to a shared page splits a full chunk: the earlier version keeps its rows.
    func testSplittingAFullChunkOfASharedPageLeavesTheEarlierVersion() {
        let order = d.orders[0]
        var seq = RowSequence(sorted: ContiguousArray((0..<10_000).map { row($0, 2 * $0, tags: 1) }))
        let (k, start) = seq.chunkIndex(ofRow: 5_000)
        let full = RowSequence.maxChunk - seq.withRowsView { $0.withChunk(k) { $0.count } }
        for j in 0..<full { seq.insert(row(20_000 + j, 2 * start + 1, tags: 1), order: order) }
        XCTAssertEqual(seq.withRowsView { $0.withChunk(k) { $0.count } }, RowSequence.maxChunk)
        let earlier = seq
        let ids = earlier.withRowsView { v in (0..<v.count).map { i in v.withRow(at: i) { $0.id } } }
        seq.insert(row(30_000, 2 * start + 1, tags: 1), order: order)
        XCTAssertEqual(seq.chunkCount, earlier.chunkCount + 1, "the full chunk was split")
        XCTAssertEqual(earlier.withRowsView { v in (0..<v.count).map { i in v.withRow(at: i) { $0.id } } }, ids)
        XCTAssertEqual(earlier.tagCount, 10_000 + full)
    }

    /// Every tag of a sequence whose chunks mostly have one tag length (found without reading
    /// rows), before and after rows of other lengths enter some chunks and rows leave others:
    /// the row holding it and that row's first tag, as a plain prefix sum says.
    func testEveryTagFindsItsRowWhetherChunksHaveOneTagLengthOrMany() {
        let order = d.orders[0]
        var rng = SplitMix64(seed: 29)
        var model = (0..<3_000).map { (id: $0, v: 2 * $0, tags: 2) }
        var seq = RowSequence(sorted: ContiguousArray(model.map { row($0.id, $0.v, tags: $0.tags) }))
        func verify(_ message: String) {
            var tag = 0
            var starts: [Int] = []
            for r in model { starts.append(tag); tag += r.tags }
            XCTAssertEqual(seq.tagCount, tag, message)
            var i = 0
            for t in 0..<tag {
                while starts[i] + model[i].tags <= t { i += 1 }
                let found = seq.row(containingTag: t)
                XCTAssertEqual(found?.index, i, "\(message): tag \(t)")
                XCTAssertEqual(found?.tagOffset, starts[i], "\(message): tag \(t)")
            }
            XCTAssertNil(seq.row(containingTag: tag), message)
        }
        verify("one tag length everywhere")
        for k in 0..<300 {
            // Odd sort values fall between the rows built; lengths 0, 1 and 3 break a chunk's stride.
            let v = 2 * Int.random(in: 0..<3_000, using: &rng) + 1
            let r = (id: 10_000 + k, v: v, tags: [0, 1, 3][k % 3])
            seq.insert(row(r.id, r.v, tags: r.tags), order: order)
            let after = model.firstIndex { $0.v > v || ($0.v == v && !"r\($0.id)".utf8.lexicographicallyPrecedes("r\(r.id)".utf8)) }
            model.insert(r, at: after ?? model.count)
        }
        for _ in 0..<300 {
            let i = Int.random(in: 0..<model.count, using: &rng)
            seq.remove(at: i)
            model.remove(at: i)
        }
        verify("after inserts of other lengths and removals")
    }
}
