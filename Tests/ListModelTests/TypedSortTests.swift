import XCTest
@testable import ListModel
import SectionalService   // the answers' envelopes

/// `sortBy` rules with `"as": "number" | "string" | "date"`.
final class TypedSortTests: XCTestCase {
    func sorted(_ sortBy: String, _ recs: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        let d = definition(#"{"sections":[{"source":"c","key":"k","sortBy":\#(sortBy),"row":{"title":"{id}"}}]}"#, file: file, line: line)
        return ListSnapshot.build(definition: d, records: ["c": records(recs)]).rowIDs[0]
    }

    let dates = #"""
    [{"id":"a","t":"2024-03-05T23:00:00Z"},{"id":"b","t":"2024-03-05T23:30:00+01:00"},{"id":"c","t":0},
     {"id":"d","t":"not a date"},{"id":"e","t":"2024-03-05"},{"id":"f","t":"2024-03-05T23:00:00.500Z"},
     {"id":"g","t":"2024-03-06T00:15:00+01:00"},{"id":"h"},{"id":"i","t":1709679600.25}]
    """#

    func testDatesCompareAsInstants() {
        // b is 22:30Z, g is 23:15Z, i is epoch seconds for 2024-03-05T23:00:00.250Z.
        XCTAssertEqual(sorted(#"[{"field":"t","as":"date"}]"#, dates), ["c", "e", "b", "a", "i", "f", "g", "d", "h"])
        XCTAssertEqual(sorted(#"[{"field":"t","as":"date","order":"desc"}]"#, dates), ["g", "f", "i", "a", "b", "e", "c", "d", "h"],
                       "values that do not convert stay last in both directions")
        // Without `as`, the strings compare by code points: 23:30+01:00 after 23:00Z.
        let plain = sorted(#"[{"field":"t"}]"#, dates)
        XCTAssertLessThan(plain.firstIndex(of: "a") ?? 0, plain.firstIndex(of: "b") ?? 0)
    }

    func testADateSortReadsEpochSecondsInAStringAsTheDateFormatterDoes() {
        // "20260101" is epoch seconds (1970-08-23), not 2026: the `date` formatter writes it so.
        let recs = #"[{"id":"a","t":"1970-09-01"},{"id":"b","t":"20260101"},{"id":"c","t":"1970-08-01"},{"id":"d","t":"x"}]"#
        XCTAssertEqual(sorted(#"[{"field":"t","as":"date"}]"#, recs), ["c", "b", "a", "d"])
        let d = definition(#"{"sections":[{"source":"c","key":"k","sortBy":[{"field":"t","as":"date"}],"row":{"title":"{t|date:yyyy-MM-dd}"}}]}"#)
        let l = ListSnapshot.build(definition: d, records: ["c": records(recs)])
        let titles = (0..<4).map { l.rowJSON(0, $0)["title"]?.stringValue ?? "" }
        XCTAssertEqual(titles, ["1970-08-01", "1970-08-23", "1970-09-01", "x"], "the order is the order of what the rows show")
    }

    func testNumbersFromNumbersAndNumericStrings() {
        let recs = #"""
        [{"id":"a","v":"10"},{"id":"b","v":9},{"id":"c","v":"9.5"},{"id":"d","v":"abc"},{"id":"e","v":true},
         {"id":"f","v":1e2},{"id":"g","v":"-1"},{"id":"h","v":"9007199254740993"},{"id":"i","v":9007199254740992}]
        """#
        XCTAssertEqual(sorted(#"[{"field":"v","as":"number"}]"#, recs), ["g", "b", "c", "a", "f", "i", "h", "d", "e"])
        XCTAssertEqual(sorted(#"[{"field":"v","as":"number","order":"desc"}]"#, recs), ["h", "i", "f", "a", "c", "b", "g", "d", "e"])
    }

    func testStringsFromScalars() {
        let recs = #"[{"id":"a","v":10},{"id":"b","v":"9"},{"id":"c","v":true},{"id":"d","v":"a"},{"id":"e","v":null},{"id":"f","v":{}}]"#
        // "10" < "9" < "a" < "true" by code points; null and objects last.
        XCTAssertEqual(sorted(#"[{"field":"v","as":"string"}]"#, recs), ["a", "b", "d", "c", "e", "f"])
        // Without `as`: booleans < numbers < strings.
        XCTAssertEqual(sorted(#"[{"field":"v"}]"#, recs), ["c", "a", "b", "d", "e", "f"])
    }

    func testPagesWalkATypedOrderWithoutSkipsOrRepeats() throws {
        let d = definition(#"{"sections":[{"source":"c","key":"k","sortBy":[{"field":"t","as":"date"}],"row":{"title":"{id}"}}]}"#)
        let l = ListSnapshot.build(definition: d, records: ["c": records(dates)])
        let binding = PageBinding(list: "l", view: nil)
        var ids: [String] = []
        var token: String?
        repeat {
            let page = try l.page(size: 2, token: token, view: ViewState(), binding: binding)
            var w = JSONWriter()
            l.writePageAnswer(page, list: "l", version: 1, into: &w)
            let json = parse(w.bytes)
            for section in json["sections"]?.arrayValue ?? [] {
                ids += (section["rows"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            }
            token = json["nextPageToken"]?.stringValue
        } while token != nil
        XCTAssertEqual(ids, ["c", "e", "b", "a", "i", "f", "g", "d", "h"])
    }

    func testABadAsIsAnErrorWithItsPath() {
        let errors = definitionErrors(#"{"l":{"sections":[{"source":"c","key":"k","sortBy":[{"field":"t","as":"money"},{"field":"u","as":1}],"row":{}}]}}"#)
        XCTAssertEqual(errors.map(\.path), ["lists.l.sections[0].sortBy[0].as", "lists.l.sections[0].sortBy[1].as"])
    }
}
