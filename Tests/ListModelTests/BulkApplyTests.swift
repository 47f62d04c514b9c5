import Dispatch
import XCTest
@testable import ListModel

/// Seeded random tests: a batch applied in one pass = the same writes one by one = a fresh build.
final class BulkApplyTests: XCTestCase {
    /// Random batches (0…500 writes, repeated ids, deletes of missing ids, group moves) on the
    /// property-test definition (literal ids, two specs on one collection, explicit and
    /// descending section orders, a second collection).
    func testBulkEqualsSequentialAndFreshBuild() {
        bulkEqualsSequentialAndFreshBuild(seeds: [11, 12, 13, 14, 15, 16, 17, 18], pools: [60, 200, 800], largest: 500, parallelism: .serial)
    }

    /// The same with batches large enough for the parallel path (rows made, the id index's
    /// nodes and the sections on several threads), run on every core: duplicate claims, two
    /// collections, deletes and group moves come out as one write after another makes them.
    func testParallelBulkEqualsSequentialAndFreshBuild() {
        let cores = Parallelism { DispatchQueue.concurrentPerform(iterations: $0, execute: $1) }
        bulkEqualsSequentialAndFreshBuild(seeds: [21, 22, 23], pools: [3_000, 6_000], largest: 4_000, parallelism: cores)
    }

    private func bulkEqualsSequentialAndFreshBuild(seeds: [UInt64], pools: [Int], largest: Int, parallelism: Parallelism) {
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let pool = pools[Int(seed) % pools.count]
            var store: [String: [String: JSONValue]] = ["a": [:], "b": [:]]
            for i in 0..<Int.random(in: 0..<(pool / 2), using: &rng) {
                let c = i % 3 == 0 ? "b" : "a"
                let id = "r\(Int.random(in: 0..<pool, using: &rng))"
                store[c]![id] = PropertyTests.randomRecord(id, &rng)
            }
            func fresh() -> ListSnapshot {
                ListSnapshot.build(definition: PropertyTests.def, records: store.mapValues { $0.valuesByKey })
            }
            var bulk = fresh()
            var sequential = bulk
            for step in 0..<25 {
                let c = Int.random(in: 0..<4, using: &rng) == 0 ? "b" : "a"
                let size = step % 5 == 0 ? Int.random(in: 0...3, using: &rng) : Int.random(in: 0...largest, using: &rng)
                let deleteShare = Int.random(in: 1...4, using: &rng)    // 1 in 2…5 writes deletes
                var batch: [RecordChange] = []
                for _ in 0..<size {
                    let id = "r\(Int.random(in: 0..<pool, using: &rng))"
                    if Int.random(in: 0...deleteShare, using: &rng) == 0 {
                        store[c]![id] = nil
                        batch.append(.delete(id: id))
                    } else {
                        let r = PropertyTests.randomRecord(id, &rng)
                        store[c]![id] = r
                        batch.append(.upsert(r))
                    }
                }
                let before = bulk
                let beforeText = before.fullText()
                for change in batch { sequential.apply(change, collection: c) }
                if step % 2 == 0 { bulk.applyBulk(batch, collection: c, parallelism: parallelism) } else { bulk.apply(batch, collection: c, parallelism: parallelism) }
                let expected = fresh().fullText()
                XCTAssertEqual(sequential.fullText(), expected, "seed \(seed) step \(step): sequential")
                XCTAssertEqual(bulk.fullText(), expected, "seed \(seed) step \(step): bulk (\(size) writes)")
                XCTAssertEqual(bulk.duplicateRowCount, sequential.duplicateRowCount, "seed \(seed) step \(step)")
                XCTAssertEqual(bulk.index.count, sequential.index.count, "seed \(seed) step \(step)")
                XCTAssertEqual(before.fullText(), beforeText, "seed \(seed) step \(step): old snapshot changed")
            }
            // Single writes on a bulk-built snapshot still work.
            for _ in 0..<50 {
                let id = "r\(Int.random(in: 0..<pool, using: &rng))"
                let r = PropertyTests.randomRecord(id, &rng)
                store["a"]![id] = r
                bulk.apply(.upsert(r), collection: "a")
            }
            XCTAssertEqual(bulk.fullText(), fresh().fullText(), "seed \(seed): single writes after bulk")
        }
    }

    /// Large sections: chunks split, merge, empty and are shared; groups empty and reappear.
    func testBulkOnLargeSections() {
        let d = definition(#"""
        {"sections":[{"source":"a","groupBy":"g","sectionOrder":["b","a"],"sortBy":[{"field":"v"}],"row":{"title":"{v}","tagLength":1}},
                     {"source":"a","key":"k","where":{"g":"a"},"sortBy":[{"field":"v","order":"desc"}],"row":{"tagLength":2}}]}
        """#)
        for seed: UInt64 in [1, 2, 3] {
            var rng = SplitMix64(seed: seed)
            var store: [String: JSONValue] = [:]
            func rec(_ id: String) -> JSONValue {
                ["id": .string(id), "g": .string(["a", "b", "c"][Int.random(in: 0..<3, using: &rng)]),
                 "v": .int(Int64.random(in: 0..<100, using: &rng))]
            }
            var bulk = ListSnapshot.build(definition: d, records: ["a": []])
            var sequential = bulk, parallel = bulk
            let cores = Parallelism { DispatchQueue.concurrentPerform(iterations: $0, execute: $1) }
            for step in 0..<30 {
                let phase = step / 10          // grow, churn, shrink
                var batch: [RecordChange] = []
                for _ in 0..<Int.random(in: 0...2_000, using: &rng) {
                    let id = "r\(Int.random(in: 0..<6_000, using: &rng))"
                    if Int.random(in: 0..<4, using: &rng) < phase + (phase == 2 ? 1 : 0) {
                        store[id] = nil
                        batch.append(.delete(id: id))
                    } else {
                        let r = rec(id)
                        store[id] = r
                        batch.append(.upsert(r))
                    }
                }
                let keep = bulk
                for change in batch { sequential.apply(change, collection: "a") }
                bulk.apply(batch, collection: "a")
                parallel.apply(batch, collection: "a", parallelism: cores)
                _ = keep
                let expected = ListSnapshot.build(definition: d, records: ["a": store.valuesByKey]).fullText()
                XCTAssertEqual(bulk.fullText(), expected, "seed \(seed) step \(step)")
                XCTAssertEqual(parallel.fullText(), expected, "seed \(seed) step \(step): parallel")
                XCTAssertEqual(parallel.index.count, bulk.index.count, "seed \(seed) step \(step): parallel")
                XCTAssertEqual(sequential.fullText(), expected, "seed \(seed) step \(step)")
                for s in bulk.sections {
                    for c in s.rows.chunks {
                        XCTAssertGreaterThan(c.count, 0, "seed \(seed)")
                        XCTAssertLessThanOrEqual(c.count, RowSequence.maxChunk, "seed \(seed)")
                    }
                }
            }
        }
    }

    /// A search that starts from a row at or before its answer (as a batch's sorted inserts do)
    /// finds what a search from the first row finds: every start, both strictnesses, keys
    /// before, between, on and after the rows, across many chunks.
    func testSearchFromAnEarlierRowFindsWhatASearchFromTheStartFinds() {
        let d = definition(#"{"sections":[{"source":"a","key":"k","sortBy":[{"field":"v"}],"row":{"title":"{v}"}}]}"#)
        var rng = SplitMix64(seed: 5)
        let stored: [JSONValue] = (0..<2_000).map { i in
            ["id": .string("r\(i)"), "v": .int(Int64.random(in: 0..<400, using: &rng))]
        }
        let list = ListSnapshot.build(definition: d, records: ["a": stored])
        let rows = list.sections[0].rows, order = list.definition.orders[0]
        XCTAssertGreaterThan(rows.chunkCount, 10)
        for _ in 0..<3_000 {
            let key = SortKey.one(.int(Int64.random(in: -1...401, using: &rng)))
            let id = "r\(Int.random(in: 0..<2_200, using: &rng))"
            for strictly in [false, true] {
                let answer = rows.lowerBound(of: Row.position(key, id), order: order, strictly: strictly)
                for start in [0, answer, Int.random(in: 0...answer, using: &rng), max(0, answer - 1)] {
                    XCTAssertEqual(rows.lowerBound(of: Row.position(key, id), order: order, strictly: strictly, from: start), answer,
                                   "key \(key) id \(id) strictly \(strictly) from \(start)")
                }
            }
            let r = Int.random(in: 0..<rows.count, using: &rng)
            let (k, rid) = rows.withRowsView { v in v.withRow(at: r) { ($0.sortKey, $0.id) } }
            XCTAssertEqual(rows.index(of: k, rid, order: order, from: Int.random(in: 0...r, using: &rng)), r)
        }
    }

    /// An upsert then a delete of one id in a batch is a delete; a delete then an upsert is an upsert.
    func testLastWriteWinsWithinBatch() {
        let def = PropertyTests.def
        var list = ListSnapshot.build(definition: def, records: ["a": records(#"[{"id":"x","on":true,"g":"m","v":1}]"#)])
        var batch: [RecordChange] = []
        for i in 0..<40 { batch.append(.upsert(parse(#"{"id":"y\#(i)","on":true,"g":"c","v":\#(i)}"#))) }
        batch.append(.upsert(parse(#"{"id":"x","on":true,"g":"z","v":2}"#)))
        batch.append(.delete(id: "x"))
        batch.append(.delete(id: "y3"))
        batch.append(.upsert(parse(#"{"id":"y3","on":true,"g":"m","v":3}"#)))
        batch.append(.delete(id: "missing"))
        list.applyBulk(batch, collection: "a")
        let ids = list.rowIDs.flatMap { $0 }
        XCTAssertFalse(ids.contains("x"))
        XCTAssertTrue(ids.contains("y3"))
        XCTAssertFalse(list.sectionKeys.contains("z"))
        XCTAssertEqual(list.rowIDs[list.sectionKeys.firstIndex(of: "m")!], ["y3"])
    }
}
