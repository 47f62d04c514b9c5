import XCTest
@testable import ListModel

final class UpdateTests: XCTestCase {
    let d = definition(#"""
    {"sections":[
      {"key":"lit","rows":[{"id":"x1","title":"literal"}]},
      {"source":"a","groupBy":"g","title":"{$key} ({$count})","sortBy":[{"field":"n"}],"row":{"title":"{id}:{n}","tagLength":2}},
      {"source":"a","key":"all","where":{"dup":true},"row":{"title":"again"}},
      {"source":"b","key":"bs","row":{"title":"b {id}"}}
    ]}
    """#)

    func testUpsertDeleteMatchFreshBuildAndOldSnapshotIsUntouched() {
        var a: [String: JSONValue] = [:]
        var l = ListSnapshot.build(definition: d, records: [:])
        let before = l.fullText()
        let old = l
        func up(_ r: JSONValue) {
            a[r["id"]!.stringValue!] = r
            l = l.applying(.upsert(r), collection: "a")
            XCTAssertEqual(l.fullText(), ListSnapshot.build(definition: d, records: ["a": a.valuesByKey]).fullText())
        }
        up(["id": "p1", "g": "t", "n": 3])
        up(["id": "p2", "g": "t", "n": 1])
        up(["id": "p1", "g": "u", "n": 3])          // moves section; "t" keeps one row
        XCTAssertEqual(l.sectionKeys, ["lit", "t", "u", "all", "bs"])
        up(["id": "p2", "g": "u", "n": 9])          // "t" vanishes
        XCTAssertEqual(l.sectionKeys, ["lit", "u", "all", "bs"])
        up(["id": "p2", "g": "u", "n": 0, "dup": true])   // duplicate: counted
        XCTAssertEqual(l.duplicateRowCount, 1)
        up(["id": "x1", "g": "u", "n": 5])          // record id equal to a literal id: the literal spec (first) keeps it
        XCTAssertEqual(l.duplicateRowCount, 2)
        XCTAssertEqual(l.rowIDs[0], ["x1"])
        a["p2"] = nil
        l.apply(.delete(id: "p2"), collection: "a")
        XCTAssertEqual(l.fullText(), ListSnapshot.build(definition: d, records: ["a": a.valuesByKey]).fullText())
        XCTAssertEqual(l.duplicateRowCount, 1)
        l.apply(.delete(id: "nope"), collection: "a")
        l.apply(.upsert(["id": "z", "g": "q"]), collection: "unread")   // collection not read: no change
        XCTAssertEqual(l.fullText(), ListSnapshot.build(definition: d, records: ["a": a.valuesByKey]).fullText())
        XCTAssertEqual(old.fullText(), before)
    }

    func testDataSpecBeforeLiteralTakesTheIdOverAndGivesItBack() {
        let d = definition(#"""
        {"sections":[{"source":"a","key":"data","row":{"title":"data"}},{"key":"lit","rows":[{"id":"x","title":"literal"}]}]}
        """#)
        var l = ListSnapshot.build(definition: d, records: [:])
        XCTAssertEqual(l.rowIDs, [[], ["x"]])
        l.apply(.upsert(["id": "x"]), collection: "a")
        XCTAssertEqual(l.rowIDs, [["x"], []])
        XCTAssertEqual(l.duplicateRowCount, 1)
        XCTAssertEqual(l.fullText(), ListSnapshot.build(definition: d, records: ["a": [["id": "x"]]]).fullText())
        l.apply(.delete(id: "x"), collection: "a")
        XCTAssertEqual(l.rowIDs, [[], ["x"]])
        XCTAssertEqual(l.duplicateRowCount, 0)
        XCTAssertEqual(l.rowJSON(1, 0)["title"], "literal")
    }

    func testBatchAndCollisionKeysFollowChanges() {
        let d = definition(#"""
        {"sections":[{"source":"a","groupBy":"g","row":{}},{"source":"b","groupBy":"g","row":{}}]}
        """#)
        var l = ListSnapshot.build(definition: d, records: [:])
        l = l.applying([.upsert(["id": "1", "g": "k"]), .upsert(["id": "2", "g": "m"])], collection: "b")
        XCTAssertEqual(l.sectionKeys, ["k", "m"])
        l.apply(.upsert(["id": "3", "g": "k"]), collection: "a")
        XCTAssertEqual(l.sectionKeys, ["k", "k#1", "m"])
        l.apply(.delete(id: "3"), collection: "a")
        XCTAssertEqual(l.sectionKeys, ["k", "m"])
    }

    func testLargeSectionChunksSplitAndMerge() {
        let d = definition(#"{"sections":[{"source":"a","key":"k","sortBy":[{"field":"n"}],"row":{"tagLength":2}}]}"#)
        var l = ListSnapshot.build(definition: d, records: [:])
        var rng = SplitMix64(seed: 7)
        var present: [Int: Int] = [:]
        var maxRows = 0
        for step in 0..<6000 {
            maxRows = max(maxRows, present.count)
            let id = Int.random(in: 0..<3000, using: &rng)
            if step > 4000 || Bool.random(using: &rng) == false && present[id] != nil {
                present[id] = nil
                l.apply(.delete(id: "r\(id)"), collection: "a")
            } else {
                let n = Int.random(in: 0..<500, using: &rng)
                present[id] = n
                l.apply(.upsert(["id": .string("r\(id)"), "n": .int(Int64(n))]), collection: "a")
            }
        }
        let expected = present.sorted { x, y in
            x.value != y.value ? x.value < y.value : "r\(x.key)".utf8.lexicographicallyPrecedes("r\(y.key)".utf8)
        }
        XCTAssertGreaterThan(present.count, 0)
        XCTAssertEqual(l.rowIDs[0], expected.map { "r\($0.key)" })
        XCTAssertEqual(l.tagCount, present.count * 2)
        XCTAssertGreaterThan(maxRows, RowSequence.maxChunk)   // chunks were split
        for (k, _) in present.prefix(50) {
            let loc = l.locate(rowID: "r\(k)", view: ViewState())!
            XCTAssertEqual(l.locate(tag: loc.tag.location + 1, view: ViewState())?.rowID, "r\(k)")
        }
    }
}
