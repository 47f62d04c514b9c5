import XCTest
@testable import ListModel
import SectionalService   // the answers' envelopes

final class LookupTests: XCTestCase {
    /// Sections: a [r0(len 0), r1(len 1), r2(len 3)], b hidden [r3(len 2)], e (empty), c [r4(len 1), r5(len 0)]
    let d = definition(#"""
    {"sections":[
      {"key":"a","type":"A","rows":[{"id":"r0","type":"x","tagLength":0},{"id":"r1","type":"y"},{"id":"r2","type":"y","tagLength":3}]},
      {"key":"b","type":"B","hidden":true,"rows":[{"id":"r3","type":"y","tagLength":2}]},
      {"key":"e","type":"A"},
      {"key":"c","type":"A","rows":[{"id":"r4","type":"z"},{"id":"r5","type":"y","tagLength":0}]}
    ]}
    """#)

    var list: ListSnapshot { ListSnapshot.build(definition: d, records: [:]) }

    func testTagRangesAcrossTheList() {
        let l = list
        XCTAssertEqual(l.tagCount, 7)
        let tags = (0..<6).map { i -> TagRange in
            let s = [0, 0, 0, 1, 3, 3][i], r = [0, 1, 2, 0, 0, 1][i]
            return l.location(section: s, row: r, view: ViewState())!.tag
        }
        XCTAssertEqual(tags, [TagRange(location: 0, length: 0), TagRange(location: 0, length: 1), TagRange(location: 1, length: 3),
                              TagRange(location: 4, length: 2), TagRange(location: 6, length: 1), TagRange(location: 7, length: 0)])
        let o = l.outline(view: d.defaultView)
        XCTAssertEqual(o["sections"]!.arrayValue!.map { $0["firstTag"]!.intValue! }, [0, 4, 6, 6])
    }

    func testTagResolution() {
        let l = list
        let v = d.defaultView
        XCTAssertEqual(l.locate(tag: 0, view: v)?.rowID, "r1")            // never the length-0 row
        XCTAssertEqual(l.locate(tag: 1, view: v)?.rowID, "r2")
        XCTAssertEqual(l.locate(tag: 3, view: v)?.rowID, "r2")
        XCTAssertEqual(l.locate(tag: 3, view: v)?.tag, TagRange(location: 1, length: 3))
        let hidden = l.locate(tag: 5, view: v)!
        XCTAssertEqual(hidden.rowID, "r3")
        XCTAssertTrue(hidden.hidden)                                       // hidden sections still resolve
        XCTAssertEqual(hidden.indexPath, ListIndexPath(section: 1, row: 0))
        XCTAssertEqual(l.locate(tag: 6, view: v)?.indexPath, ListIndexPath(section: 3, row: 0))
        XCTAssertNil(l.locate(tag: 7, view: v))                            // past the end
        XCTAssertNil(l.locate(tag: -1, view: v))
        var w = JSONWriter()
        l.writeLocationAnswer(hidden, list: "l", version: 9, tag: 5, into: &w)
        XCTAssertEqual(text(w), #"{"list":"l","version":9,"tag":5,"indexPath":{"section":1,"row":0},"hidden":true,"row":{"id":"r3","type":"y","indexPath":{"section":1,"row":0},"tag":{"location":4,"length":2},"title":"","height":44}}"#)
    }

    func testAllLengthZeroNeverResolves() {
        let d = definition(#"{"sections":[{"key":"a","rows":[{"id":"a","tagLength":0},{"id":"b","tagLength":0}]}]}"#)
        let l = ListSnapshot.build(definition: d, records: [:])
        XCTAssertEqual(l.tagCount, 0)
        XCTAssertNil(l.locate(tag: 0, view: ViewState()))
    }

    /// A row written again and again with a new type each time keeps its chunk's row types
    /// bounded (they grew by one a write, each write scanning them and each version copying them).
    func testAChunksRowTypesStayBoundedWhileARowsTypeKeepsChanging() {
        let d = definition(#"{"sections":[{"source":"c","key":"s","type":"S","typeField":"kind","sortBy":[{"field":"n"}],"row":{}}]}"#)
        var l = ListSnapshot.build(definition: d, records: ["c": [["id": "r", "kind": "k0", "n": 1]]])
        for k in 1...5_000 { l.apply(.upsert(["id": "r", "kind": .string("k\(k)"), "n": 1]), collection: "c") }
        let types = l.sections[0].rows.chunks.map(\.types.count)
        XCTAssertLessThanOrEqual(types.reduce(0, +), 2, "\(types)")
        XCTAssertEqual(l.locate(sectionType: "S", rowType: "k5000", view: ViewState())?.indexPath, ListIndexPath(section: 0, row: 0))
        XCTAssertNil(l.locate(sectionType: "S", rowType: "k4999", view: ViewState()))
    }

    func testRowIdAndTypeLookups() {
        let l = list
        let v = d.defaultView
        XCTAssertEqual(l.locate(rowID: "r4", view: v)?.indexPath, ListIndexPath(section: 3, row: 0))
        XCTAssertEqual(l.locate(rowID: "r3", view: v)?.hidden, true)
        XCTAssertEqual(l.locate(rowID: "r3", view: ViewState())?.hidden, false)
        XCTAssertNil(l.locate(rowID: "nope", view: v))
        XCTAssertEqual(l.sectionIndexes(ofType: "A"), [0, 2, 3])
        XCTAssertEqual(l.sectionIndexes(ofType: "Q"), [])
        XCTAssertEqual(l.locate(sectionType: "A", rowType: "y", view: v)?.indexPath, ListIndexPath(section: 0, row: 1))
        XCTAssertEqual(l.locate(sectionType: "A", rowType: "z", view: v)?.indexPath, ListIndexPath(section: 3, row: 0))
        XCTAssertEqual(l.locate(sectionType: "B", rowType: "y", view: v)?.hidden, true)
        XCTAssertNil(l.locate(sectionType: "B", rowType: "z", view: v))
        var w = JSONWriter()
        l.writeSectionIndexesAnswer(type: "A", list: "l", version: 3, into: &w)
        XCTAssertEqual(text(w), #"{"list":"l","version":3,"sections":[0,2,3]}"#)
    }

    /// Section and row types compare by code points, as everywhere else: "\u{e9}" (é) and
    /// "e\u{301}" (e and a combining acute) are two types, though Swift's `==` finds them equal.
    func testTypeLookupsCompareCodePoints() {
        let d = definition(#"{"sections":[{"key":"a","type":"e\u0301","rows":[{"id":"r1","type":"e\u0301"},{"id":"r2","type":"\u00e9"}]},{"key":"b","type":"\u00e9","rows":[{"id":"r3","type":"e\u0301"},{"id":"r4","type":"\u00e9"}]}]}"#)
        let l = ListSnapshot.build(definition: d, records: [:])
        let v = ViewState()
        XCTAssertEqual(l.sectionIndexes(ofType: "\u{e9}"), [1])
        XCTAssertEqual(l.sectionIndexes(ofType: "e\u{301}"), [0])
        XCTAssertEqual(l.locate(sectionType: "\u{e9}", rowType: "\u{e9}", view: v)?.rowID, "r4")
        XCTAssertEqual(l.locate(sectionType: "\u{e9}", rowType: "e\u{301}", view: v)?.rowID, "r3")
        XCTAssertEqual(l.locate(sectionType: "e\u{301}", rowType: "\u{e9}", view: v)?.rowID, "r2")
        XCTAssertEqual(l.locate(sectionType: "e\u{301}", rowType: "e\u{301}", view: v)?.rowID, "r1")
    }

    func testHiddenSectionsInOutline() {
        let l = list
        let o = l.outline(view: d.defaultView)
        XCTAssertEqual(d.defaultHidden, [CodePointKey("b")])
        XCTAssertEqual(o["rowCount"], 5)
        XCTAssertEqual(o["totalRowCount"], 6)
        let b = o["sections"]!.arrayValue![1]
        XCTAssertEqual(b["hidden"], true)
        XCTAssertEqual(b["rowCount"], 0)
        XCTAssertEqual(b["totalRowCount"], 1)
        let o2 = l.outline(view: ViewState(hidden: ["a", "unknown"]))
        XCTAssertEqual(o2["rowCount"], 3)
        XCTAssertEqual(o2["sections"]!.arrayValue![0]["rowCount"], 0)
        XCTAssertEqual(o2["sections"]!.arrayValue![1]["hidden"], false)
        XCTAssertEqual(l.sectionIndex(forKey: "c"), 3)
        XCTAssertEqual(l.section(at: 1)?.key, "b")
        XCTAssertNil(l.section(at: 4))
    }

    func testSectionRange() {
        let l = list
        let v = d.defaultView
        func rows(_ s: Int, _ start: Int, _ count: Int) -> [String] {
            guard let r = l.sectionRange(s, start: start, count: count, view: v) else { return ["nil"] }
            var w = JSONWriter()
            l.writeSectionRangeAnswer(r, list: "l", version: 1, into: &w)
            let j = parse(w.bytes)
            return j["section"]!["rows"]!.arrayValue!.map { $0["id"]!.stringValue! }
        }
        XCTAssertEqual(rows(0, 0, 2), ["r0", "r1"])
        XCTAssertEqual(rows(0, 1, 10), ["r1", "r2"])
        XCTAssertEqual(rows(0, 3, 1), [])
        XCTAssertEqual(rows(0, 99, 1), [])
        XCTAssertEqual(rows(1, 0, 5), [])     // hidden
        XCTAssertEqual(rows(9, 0, 5), ["nil"])
        let r = l.sectionRange(0, start: 2, count: 1, view: v)!
        var w = JSONWriter()
        l.writeSectionRangeAnswer(r, list: "l", version: 1, into: &w)
        let j = parse(w.bytes)
        XCTAssertEqual(j["section"]!["rows"]!.arrayValue![0]["tag"], parse(#"{"location":1,"length":3}"#))
        XCTAssertEqual(j["section"]!["index"], 0)
    }
}
