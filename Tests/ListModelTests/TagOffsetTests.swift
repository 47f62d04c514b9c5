import XCTest
@testable import ListModel

/// A range of rows starting mid-chunk takes its first tag from the chunk's rows before it: read
/// row by row, or multiplied out when the chunk knows all its rows have one tag length
/// (``RowChunk/tagStride``). Every range of a list changed in place (a row's tag length changed
/// where it stands, rows of other lengths inserted and removed) is checked against a fresh build.
final class TagOffsetTests: XCTestCase {
    let d = definition(#"""
    {"sections":[{"source":"a","key":"all","sortBy":[{"field":"n"}],"typeField":"kind",
      "row":{"title":"{id}","tagLength":2},"rowTypes":{"one":{"tagLength":1},"none":{"tagLength":0}}}]}
    """#)

    func testRangesStartingMidChunkTakeTheirFirstTagFromTheRowsBeforeThem() {
        var records: [String: JSONValue] = [:]
        for n in 0..<400 { records["r\(n)"] = ["id": .string("r\(n)"), "n": .int(Int64(n * 10))] }
        var list = ListSnapshot.build(definition: d, records: ["a": records.valuesByKey])
        func change(_ record: JSONValue) {
            records[record["id"]!.stringValue!] = record
            list.apply(.upsert(record), collection: "a")
        }
        func remove(_ id: String) {
            records[id] = nil
            list.apply(.delete(id: id), collection: "a")
        }
        func check(_ step: String) {
            let fresh = ListSnapshot.build(definition: d, records: ["a": records.valuesByKey])
            XCTAssertEqual(list.sections[0].rows.count, fresh.sections[0].rows.count, step)
            for start in 0..<list.sections[0].rows.count {
                var changed = JSONWriter(), built = JSONWriter()
                list.appendRows(section: 0, start: start, count: 2, into: &changed)
                fresh.appendRows(section: 0, start: start, count: 2, into: &built)
                guard text(changed) == text(built) else {
                    return XCTFail("\(step): rows from \(start): \(text(changed)) against \(text(built))")
                }
            }
        }
        check("built")
        // Same sort key: each row replaced where it stands, its tag length changed.
        change(["id": "r50", "n": 500, "kind": "one"])
        check("a row's tag length 2 -> 1 in place")
        change(["id": "r51", "n": 510, "kind": "none"])
        check("a row's tag length 2 -> 0 in place")
        change(["id": "r50", "n": 500])
        change(["id": "r51", "n": 510])
        check("both back to 2")
        // Inserted between rows of another tag length, then removed.
        change(["id": "x1", "n": 205, "kind": "one"])
        change(["id": "x2", "n": 1005, "kind": "none"])
        check("rows of other lengths inserted")
        remove("x1")
        remove("r300")
        check("rows removed")
    }
}
