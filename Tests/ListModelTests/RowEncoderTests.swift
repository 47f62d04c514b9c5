import XCTest
@testable import ListModel

/// ``RowEncoder``: a row object is the same bytes whichever path writes it (a page's rows, one
/// located row) and whatever its length (a row longer than the section buffer's 8 KiB stage gets
/// a buffer of its own; rows that fill the stage are flushed to the writer and staging goes on).
final class RowEncoderTests: XCTestCase {
    func list() -> ListSnapshot {
        let d = definition(#"""
        {"sections":[{"key":"a","rows":[{"id":"x"}]},
          {"source":"c","groupBy":"g","sortBy":[{"field":"n"}],"accessibility":{"identifier":"cell","options":["section","row"]},
           "row":{"title":"{t}","subtitle":"{s}","tagLength":2,"action":"app://{id}"}}]}
        """#)
        let long = String(repeating: "é\\\"long ", count: 1_200)   // ~11 KB escaped: past the 8 KiB stage
        return ListSnapshot.build(definition: d, records: ["c": records(#"""
        [{"id":"p1","g":"k","n":1,"t":"short","s":"s1"},
         {"id":"p2","g":"k","n":2,"t":"\#(long)","s":"s2"},
         {"id":"p3","g":"k","n":3,"t":"after","s":"s3"}]
        """#)])
    }

    /// One array of the section's rows written by ``ListSnapshot/appendRows(section:start:count:into:)``,
    /// a call per run, and another written row by row by ``ListSnapshot/writeRow(_:into:)``.
    private func bothPaths(_ l: ListSnapshot, section: Int, runs: [Range<Int>]) -> (page: JSONWriter, single: JSONWriter) {
        var page = JSONWriter(), single = JSONWriter()
        page.beginArray()
        single.beginArray()
        for run in runs {
            l.appendRows(section: section, start: run.lowerBound, count: run.count, into: &page)
            for r in run { l.writeRow(l.location(section: section, row: r, view: ViewState())!, into: &single) }
        }
        page.endArray()
        single.endArray()
        return (page, single)
    }

    func testLongAndShortRowsMatchTheSingleRowPathByteForByte() {
        let l = list()
        let (page, single) = bothPaths(l, section: 1, runs: [0..<3])
        XCTAssertEqual(text(page), text(single))

        let rows = parse(page.bytes).arrayValue ?? []
        guard rows.count == 3 else { return XCTFail("expected 3 rows, got \(rows.count)") }
        for (r, row) in rows.enumerated() {
            XCTAssertEqual(row["id"]?.stringValue, "p\(r + 1)")
            XCTAssertEqual(row["indexPath"], parse(#"{"section":1,"row":\#(r)}"#))
            XCTAssertEqual(row["tag"], parse(#"{"location":\#(1 + 2 * r),"length":2}"#))
            XCTAssertEqual(row["accessibilityIdentifier"]?.stringValue, "cell_1_\(r)")
            XCTAssertEqual(row["action"]?.stringValue, "app://p\(r + 1)")
        }
        XCTAssertEqual(rows[1]["title"]?.stringValue, String(repeating: "é\"long ", count: 1_200))
        XCTAssertGreaterThan(page.bytes.count, 10_000)
    }

    func testRowsFromAnOffsetKeepTheirPositionMembers() {
        let l = list()
        var w = JSONWriter()
        w.beginArray()
        l.appendRows(section: 1, start: 2, count: 5, into: &w)   // clamped to the one row left
        w.endArray()
        XCTAssertEqual(text(w), #"[{"id":"p3","type":"","indexPath":{"section":1,"row":2},"tag":{"location":5,"length":2},"title":"after","subtitle":"s3","height":44,"accessibilityIdentifier":"cell_1_2","action":"app://p3"}]"#)
    }

    /// 100 rows of ~400 bytes fill the stage several times; of two calls into one array, the
    /// second's first row gets its comma from the writer.
    func testRowsThatFillTheStageAreTheSingleRowPathsBytes() {
        let d = definition(#"""
        {"sections":[{"source":"c","groupBy":"g","sortBy":[{"field":"n"}],"row":{"title":"{t}"}}]}
        """#)
        let values = (0..<100).map { #"{"id":"p\#($0)","g":"k","n":\#($0),"t":"\#(String(repeating: "x", count: 300 + $0))"}"# }
        let l = ListSnapshot.build(definition: d, records: ["c": records("[" + values.joined(separator: ",") + "]")])
        let (page, single) = bothPaths(l, section: 0, runs: [0..<37, 37..<100])
        XCTAssertEqual(text(page), text(single))
        let rows = parse(page.bytes).arrayValue ?? []
        XCTAssertEqual(rows.map { $0["id"]?.stringValue ?? "" }, (0..<100).map { "p\($0)" })
        XCTAssertGreaterThan(page.bytes.count, 3 * 8192)
    }

    /// ``ListSnapshot/rowBytesBound(section:start:count:)`` is room enough for what the rows'
    /// write takes, and not much more (a page answer's writer is sized by it and kept as the
    /// answer's storage): with accessibility suffixes, long rows, and rows from an offset.
    func testTheRowBytesBoundHoldsTheRowsTightly() {
        let l = list()
        for (start, count) in [(0, 3), (1, 2), (2, 1)] {
            var w = JSONWriter()
            w.beginArray()
            l.appendRows(section: 1, start: start, count: count, into: &w)
            let written = w.bytes.count - 1   // the bracket is not the rows'
            let bound = l.rowBytesBound(section: 1, start: start, count: count)
            XCTAssertGreaterThanOrEqual(bound, written, "rows \(start)..<\(start + count)")
            XCTAssertLessThanOrEqual(bound, written + 8 * count, "rows \(start)..<\(start + count)")
        }
        XCTAssertEqual(l.rowBytesBound(section: 1, start: 0, count: 0), 0)
    }
}
