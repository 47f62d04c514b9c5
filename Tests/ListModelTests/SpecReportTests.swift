import XCTest
@testable import ListModel

/// What `sectional check` reports per section spec: counts, and warnings about the data.
final class SpecReportTests: XCTestCase {
    func report(_ sections: String, _ recs: String, file: StaticString = #filePath, line: UInt = #line) -> [SpecReport] {
        let d = definition(#"{"sections":\#(sections)}"#, file: file, line: line)
        let input = ["c": records(recs)]
        return ListSnapshot.build(definition: d, records: input).specReports(records: input)
    }

    func testCountsPerSpecWithARecordClaimedByAnEarlierSpec() {
        let reports = report(#"""
        [{"key":"top","rows":[{"id":"x","title":"X"}]},
         {"source":"c","groupBy":"team","where":{"vip":true},"row":{"title":"{name}"}},
         {"source":"c","key":"all","row":{"title":"{name}"}}]
        """#, #"[{"id":"a","team":"t1","name":"A","vip":true},{"id":"b","team":"t2","name":"B","vip":true},{"id":"c","name":"C"}]"#)
        XCTAssertEqual(reports.map(\.sections), [1, 2, 1])
        XCTAssertEqual(reports.map(\.rows), [1, 2, 1], "a and b belong to the first data spec, only c to the second")
        XCTAssertEqual(reports.map(\.source), [nil, "c", "c"])
        XCTAssertEqual(reports.flatMap(\.warnings), [])
    }

    func testEmptyGroupKeysAndTemplateFieldsMissingFromManyRecords() {
        let reports = report(#"[{"source":"c","groupBy":"team","row":{"title":"{name}","subtitle":"{email}"}}]"#,
                             #"[{"id":"a","team":"t","name":"A","email":"a@x"},{"id":"b","name":"B","email":null},{"id":"c","team":"","name":"C","email":"c@x"}]"#)
        XCTAssertEqual(reports[0].warnings, [
            "2 of 3 records have an empty group key (groupBy \"team\")",
            "template field \"email\" is missing from 1 of 3 records",
        ])
    }

    func testAFieldMeantToBeOptionalIsNotReported() {
        let recs = #"[{"id":"a","name":"A"},{"id":"b","name":"B"}]"#
        let spec = #"[{"source":"c","key":"k","row":{"title":"{name}{note|prefix: · }","badge":"{unread|nonzero}","detail":"{city|default:-}"}}]"#
        XCTAssertEqual(report(spec, recs)[0].warnings, [], "prefix:, nonzero and default: are written for missing values")
        XCTAssertEqual(report(#"[{"source":"c","key":"k","row":{"title":"{name}{note|prefix: · }","subtitle":"{note}"}}]"#, recs)[0].warnings,
                       ["template field \"note\" is missing from 2 of 2 records"], "one plain use is enough to expect it")
    }

    /// Counted per template: `f` is missing from 9 of the 10 records drawn with the `bot`
    /// template, which the 90 `person` records (drawn with `row`, all with `f`) used to hide (9 of 100).
    func testAFieldIsCountedAgainstTheRecordsOfItsRowTypeAlone() {
        let recs = "[" + ((0..<90).map { #"{"id":"p\#($0)","kind":"person","f":"x"}"# }
            + (0..<10).map { #"{"id":"b\#($0)","kind":"bot"\#($0 == 0 ? #","f":"y""# : "")}"# }).joined(separator: ",") + "]"
        let spec = #"[{"source":"c","key":"k","typeField":"kind","row":{"title":"{f}"},"rowTypes":{"bot":{"title":"bot {f}"}}}]"#
        XCTAssertEqual(report(spec, recs)[0].warnings, ["template field \"f\" of row type \"bot\" is missing from 9 of 10 records"])
    }

    /// Row types by code points, as rows take their templates: `"é"` and `"e\u{301}"` are two
    /// types, each checked against its own records (they were counted as one, and `a` reported
    /// missing from the other type's records).
    func testRowTypesAreToldApartByCodePoints() {
        let recs = #"[{"id":"1","t":"\u00e9","a":"x"},{"id":"2","t":"e\u0301","b":"y"},{"id":"3","t":"\u00e9","a":"x"},{"id":"4","t":"e\u0301","b":"y"}]"#
        let spec = #"[{"source":"c","key":"k","typeField":"t","row":{"title":"-"},"rowTypes":{"\u00e9":{"title":"{a}"},"e\u0301":{"title":"{b}"}}}]"#
        XCTAssertEqual(report(spec, recs)[0].warnings, [])
    }

    func testAFieldMissingFromFewRecordsIsNotReported() {
        let recs = "[" + (0..<20).map { #"{"id":"r\#($0)","name":"N"\#($0 == 0 ? "" : #","email":"e""#)}"# }.joined(separator: ",") + "]"
        XCTAssertEqual(report(#"[{"source":"c","key":"k","row":{"title":"{name} {email}"}}]"#, recs)[0].warnings, [],
                       "1 of 20 (5%) is under the 10% share")
    }

    func testSortFieldsOfMixedTypesOrThatDoNotReadAsTheirType() {
        let recs = #"[{"id":"a","v":1,"t":"2024-01-01T00:00:00Z"},{"id":"b","v":"2","t":"soon"},{"id":"c","v":"x","t":null},{"id":"d"}]"#
        XCTAssertEqual(report(#"[{"source":"c","key":"k","sortBy":[{"field":"v"},{"field":"t","as":"date"}],"row":{"title":"{id}"}}]"#, recs)[0].warnings, [
            "sortBy \"v\" holds values of mixed types (1 numbers, 2 strings); \"as\" compares them as one type",
            "1 of 4 records have a sortBy \"t\" value that does not read as date (they sort last)",
        ])
        XCTAssertEqual(report(#"[{"source":"c","key":"k","sortBy":[{"field":"v","as":"string"}],"row":{"title":"{id}"}}]"#, recs)[0].warnings, [])
    }
}
