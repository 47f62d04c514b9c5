import Foundation
import ListModel
@testable import SectionalService
import TestSupport
import XCTest

/// What `sectional check` warns of in the seed data, across a list's row types and languages.
final class ConfigCheckTests: FolderTestCase {
    func testEachRowTypeAndEachLanguageIsCheckedAgainstTheRecordsItDraws() throws {
        // 20 records: 3 bots (each with botName), 17 people; only 1 record has a German note.
        let records = (0..<20).map { i in
            i < 3 ? #"{"id":"b\#(i)","kind":"bot","name":"B\#(i)","botName":"R\#(i)"}"#
                  : #"{"id":"p\#(i)","name":"P\#(i)"\#(i == 3 ? #","noteDE":"Hallo""# : "")}"#
        }
        try ("[" + records.joined(separator: ",") + "]").write(to: folder.appendingPathComponent("c.json"), atomically: true, encoding: .utf8)
        let config = #"""
        {"seed": {"c": "c.json"},
         "lists": {"l": {"languages": ["en", "de"], "sections": [
           {"source": "c", "key": "all", "typeField": "kind",
            "row": {"title": "{name}", "subtitle": {"en": "{name}", "de": "{noteDE}"}},
            "rowTypes": {"bot": {"title": "{botName}"}}}]}}}
        """#
        let configuration = try Configuration.parse(try JSONParser.parse(config), folder: folder.path)
        let warnings = try XCTUnwrap(try configuration.summarize().lists.first?.specs.first).warnings
        XCTAssertEqual(warnings, ["template field \"noteDE\" of row type \"bot\" is missing from 3 of 3 records (de)",
                                  "template field \"noteDE\" is missing from 16 of 17 records (de)"],
                       "botName is on every bot (the only rows drawn with it); the German note is on one record; each template counts its own records")
    }
}

/// A seed file that holds an id twice: one record (the last), counted as stored, and warned of.
final class SeedRepeatedIDTests: FolderTestCase {
    func testARepeatedIdInASeedIsOneRecordAndCheckWarnsOfIt() throws {
        let seed = #"[{"id":"a","g":"x"},{"id":"b","g":"x"},{"id":"a","g":"y"},{"id":"b","g":"x"},{"id":"c"}]"#
        try seed.write(to: folder.appendingPathComponent("c.json"), atomically: true, encoding: .utf8)
        let config = #"{"seed": {"c": "c.json"}, "lists": {"l": {"sections": [{"source": "c", "groupBy": "g", "row": {"title": "{id}"}}]}}}"#
        let configuration = try Configuration.parse(try JSONParser.parse(config), folder: folder.path)
        let (lists, seeds) = try configuration.summarize()
        XCTAssertEqual(lists.first?.rowCount, 3)
        XCTAssertEqual(seeds.map(\.collection), ["c"])
        XCTAssertEqual(seeds.first?.records, 3, "the records stored, not the file's entries (5)")
        XCTAssertEqual(seeds.first?.repeatedIDs, ["a", "b"])
        XCTAssertEqual(seeds.first?.warning,
                       "\(folder.appendingPathComponent("c.json").path) repeats record id \"a\" and 1 other id; the last record of each id is kept")

        // A seed without repeats warns of nothing.
        try #"[{"id":"a"},{"id":"b"}]"#.write(to: folder.appendingPathComponent("c.json"), atomically: true, encoding: .utf8)
        let clean = try configuration.summarize().seeds
        XCTAssertEqual(clean.first?.records, 2)
        XCTAssertNil(clean.first?.warning)
    }
}
