import XCTest
@testable import ListModel

/// `prefix:`, `suffix:`, `nonzero` and `label` (with a spec's `keyLabels`).
final class ScreenFormatterTests: XCTestCase {
    func r(_ t: String, _ json: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        guard let record = parse(json, file: file, line: line).objectValue else {
            XCTFail("not an object", file: file, line: line)
            return ""
        }
        do { return try Template(parsing: t, scope: .row).render(record: record) } catch {
            XCTFail("\(error)", file: file, line: line)
            return ""
        }
    }

    func testPrefixAndSuffixOnlyAroundNonEmptyValues() {
        let t = "{name}{email|prefix: · }"
        XCTAssertEqual(r(t, #"{"name":"Zoe","email":"zoe@example.com"}"#), "Zoe · zoe@example.com")
        XCTAssertEqual(r(t, #"{"name":"Zoe"}"#), "Zoe", "no dangling separator when the field is missing")
        XCTAssertEqual(r(t, #"{"name":"Zoe","email":""}"#), "Zoe")
        XCTAssertEqual(r(t, #"{"name":"Zoe","email":null}"#), "Zoe")
        XCTAssertEqual(r("{count|suffix: items}", #"{"count":3}"#), "3 items")
        XCTAssertEqual(r("{count|suffix: items}", #"{}"#), "")
        XCTAssertEqual(r("{a|prefix:(|suffix:)}", #"{"a":"x"}"#), "(x)")
        XCTAssertEqual(r("{a|default:none|prefix:: }", #"{}"#), ": none", "default first, then the prefix")
        XCTAssertEqual(r("{a|prefix:: |default:none}", #"{}"#), "none")
        XCTAssertEqual(r("{n|number:2|prefix:$}", #"{"n":1234.5}"#), "$1,234.50")
    }

    func testNonzeroHidesZeroNumbersOnly() {
        XCTAssertEqual(r("{unread|nonzero}", #"{"unread":0}"#), "")
        // After `number` or `currency`, the number they wrote is tested, not their text (which
        // reads as a number in English only, and never with a currency's symbol).
        XCTAssertEqual(r("{p|currency:EUR|nonzero}", #"{"p":0}"#), "")
        XCTAssertEqual(r("{p|currency:EUR|nonzero}", #"{"p":"0.00"}"#), "")
        XCTAssertEqual(r("{p|currency:EUR|nonzero}", #"{"p":2}"#), "€2.00")
        XCTAssertEqual(r("{n|number:2|nonzero}", #"{"n":0}"#), "")
        // What they wrote, rounded: a number written as zero is zero.
        XCTAssertEqual(r("{n|number|nonzero}", #"{"n":0.0004}"#), "")
        XCTAssertEqual(r("{n|number:2|nonzero}", #"{"n":0.001}"#), "")
        XCTAssertEqual(r("{n|number:2|nonzero}", #"{"n":0.005}"#), "", "half to even: 0.00")
        XCTAssertEqual(r("{n|number:2|nonzero}", #"{"n":0.0051}"#), "0.01")
        XCTAssertEqual(r("{n|number:0|nonzero}", #"{"n":0.5}"#), "", "half to even: 0")
        XCTAssertEqual(r("{n|number:0|nonzero}", #"{"n":0.6}"#), "1")
        XCTAssertEqual(r("{p|currency:JPY|nonzero}", #"{"p":0.4}"#), "")
        XCTAssertEqual(r("{p|currency:EUR|nonzero}", #"{"p":-0.004}"#), "")
        XCTAssertEqual(r("{p|currency:EUR|nonzero}", #"{"p":0.006}"#), "€0.01")
        XCTAssertEqual(r("{n|number:2|prefix:x|nonzero}", #"{"n":0}"#), "x0.00", "not right after: the text")
        XCTAssertEqual(r("{unread|nonzero}", #"{"unread":0.0}"#), "")
        XCTAssertEqual(r("{unread|nonzero}", #"{"unread":-0}"#), "")
        XCTAssertEqual(r("{unread|nonzero}", #"{"unread":3}"#), "3")
        XCTAssertEqual(r("{unread|nonzero}", #"{"unread":0.001}"#), "0.001")
        XCTAssertEqual(r("{unread|nonzero}", #"{"unread":"0"}"#), "", "text that is a zero number")
        XCTAssertEqual(r("{unread|nonzero}", #"{"unread":"none"}"#), "none")
        XCTAssertEqual(r("{unread|nonzero}", #"{"unread":false}"#), "false")
        XCTAssertEqual(r("{unread|nonzero}", #"{}"#), "")
        XCTAssertEqual(r("{unread|nonzero|suffix: new}", #"{"unread":0}"#), "")
        XCTAssertEqual(r("{unread|nonzero|suffix: new}", #"{"unread":2}"#), "2 new")
    }

    func testAZeroBadgeIsAbsentNotNull() throws {
        let d = definition(#"{"sections":[{"source":"c","key":"k","row":{"title":"{id}","badge":"{unread|nonzero}"}}]}"#)
        let l = ListSnapshot.build(definition: d, records: ["c": records(#"[{"id":"a","unread":0},{"id":"b","unread":4}]"#)])
        let a = try XCTUnwrap(l.rowJSON(0, 0).objectValue)
        XCTAssertNil(a["badge"], "a zero badge is left out of the row, never null")
        XCTAssertEqual(l.rowJSON(0, 1)["badge"], "4")
    }

    func testLabelMapsKeysThroughKeyLabels() {
        let d = definition(#"""
        {"sections":[{"source":"orders","groupBy":"status","keyLabels":{"open":"Open orders","shipped":"Shipped"},
          "title":"{$key|label} ({$count})","header":{"title":"{$key|label|upper}"},
          "row":{"title":"{id}","detail":"{status|label}"}}]}
        """#)
        let l = ListSnapshot.build(definition: d, records: ["orders": records(#"""
        [{"id":"1","status":"open"},{"id":"2","status":"shipped"},{"id":"3","status":"returned"},{"id":"4","status":"open"}]
        """#)])
        let sections = l.outline()["sections"]?.arrayValue ?? []
        XCTAssertEqual(sections.map { $0["title"] }, ["Open orders (2)", "returned (1)", "Shipped (1)"],
                       "a key without a label shows itself")
        XCTAssertEqual(sections.first?["header"]?["title"], "OPEN ORDERS")
        XCTAssertEqual(l.rowJSON(0, 0)["detail"], "Open orders", "row templates map field values the same way")
        // Without keyLabels, label is the key itself.
        let plain = definition(#"{"sections":[{"source":"c","groupBy":"g","title":"{$key|label}","row":{}}]}"#)
        let p = ListSnapshot.build(definition: plain, records: ["c": records(#"[{"id":"1","g":"x"}]"#)])
        XCTAssertEqual(p.outline()["sections"]?.arrayValue?.first?["title"], "x")
    }

    /// Keys compare by code points, as section keys do: `"é"` and `"e\u{301}"` (equal as Swift
    /// strings) are two keys with a label each, and two row types with a template each.
    func testLabelsAndRowTypesCompareByCodePoints() throws {
        let d = definition(#"""
        {"sections":[{"source":"c","groupBy":"g","keyLabels":{"caf\u00e9":"one character","cafe\u0301":"two characters"},
          "title":"{$key|label}","typeField":"g","rowTypes":{"caf\u00e9":{"title":"one"},"cafe\u0301":{"title":"two"}},
          "row":{"title":"{id}"}}]}
        """#)
        let l = ListSnapshot.build(definition: d, records: ["c": records(#"""
        [{"id":"1","g":"caf\u00e9"},{"id":"2","g":"cafe\u0301"}]
        """#)])
        let sections = l.outline()["sections"]?.arrayValue ?? []
        XCTAssertEqual(sections.map { $0["title"] }, ["two characters", "one character"], "each key its own label, in code-point order")
        XCTAssertEqual(l.rowJSON(0, 0)["title"], "two")
        XCTAssertEqual(l.rowJSON(1, 0)["title"], "one")
    }

    func testLabelsMayBeLanguageMaps() {
        let d = definition(#"""
        {"languages":["en","de"],"sections":[{"source":"o","groupBy":"status",
          "keyLabels":{"open":{"en":"Open orders","de":"Offene Bestellungen"},"done":"Done"},
          "title":"{$key|label}","row":{}}]}
        """#)
        let recs: [String: [JSONValue]] = ["o": records(#"[{"id":"1","status":"open"},{"id":"2","status":"done"}]"#)]
        let en = ListSnapshot.build(definition: d, records: recs)
        XCTAssertEqual(en.outline()["sections"]?.arrayValue?.map { $0["title"] }, ["Done", "Open orders"])
        let de = ListSnapshot.build(definition: d.localized("de", formats: .english), records: recs)
        XCTAssertEqual(de.outline()["sections"]?.arrayValue?.map { $0["title"] }, ["Done", "Offene Bestellungen"])
        let errors = definitionErrors(#"{"l":{"languages":["en","de"],"sections":[{"source":"o","groupBy":"s","keyLabels":{"a":{"de":"A"}},"row":{}}]}}"#)
        XCTAssertEqual(errors.map(\.path), ["lists.l.sections[0].keyLabels.a"], "a map without the fallback language")
    }

    /// A row's actions' titles are display strings too (they were refused as maps), in literal
    /// rows and row templates; a map may not name one language twice, in two cases (which text
    /// was served followed the members' order, which the definition's fingerprint ignores).
    func testActionTitlesMayBeLanguageMapsAndAMapNamesALanguageOnce() {
        let d = definition(#"""
        {"languages":["en","de"],"sections":[
          {"key":"k","rows":[{"id":"a","title":"A","actions":[{"id":"del","title":{"en":"Delete","de":"Löschen"},"style":"destructive"}]}]},
          {"source":"o","key":"o","row":{"title":"{id}","actions":[{"id":"arc","title":{"en":"Archive","de":"Archivieren"}}]}}]}
        """#)
        let recs: [String: [JSONValue]] = ["o": records(#"[{"id":"1"}]"#)]
        let en = ListSnapshot.build(definition: d, records: recs)
        XCTAssertEqual(en.rowJSON(0, 0)["actions"]?.arrayValue?.first?["title"], "Delete")
        XCTAssertEqual(en.rowJSON(1, 0)["actions"]?.arrayValue?.first?["title"], "Archive")
        let de = ListSnapshot.build(definition: d.localized("de", formats: .english), records: recs)
        XCTAssertEqual(de.rowJSON(0, 0)["actions"]?.arrayValue?.first?["title"], "Löschen")
        XCTAssertEqual(de.rowJSON(1, 0)["actions"]?.arrayValue?.first?["title"], "Archivieren")
        let errors = definitionErrors(#"{"l":{"languages":["en","de"],"sections":[{"key":"k","title":{"en":"Hello","EN":"Bye"},"rows":[]}]}}"#)
        XCTAssertEqual(errors.map(\.path), ["lists.l.sections[0].title.EN"], "\(errors)")
    }

    /// Every language's broken translation is reported at once, each naming its language; a
    /// problem of the first language's text (which every language falls back to) only once.
    func testEachLanguagesBrokenTranslationIsReported() {
        let errors = definitionErrors(#"""
        {"l":{"languages":["en","de","fr"],"sections":[{"key":"k","title":{"en":"A","de":"{$bad}","fr":"{$worse}"},
          "rows":[]},{"key":"k2","title":"{$nope}","rows":[]},{"key":"k3","title":{"en":"{$bad}","de":"{$worse}"},"rows":[]}]}}
        """#)
        let title = errors.filter { $0.path == "lists.l.sections[0].title" }.map(\.message)
        XCTAssertEqual(title.count, 2, "\(errors)")
        XCTAssertTrue(title.contains { $0.hasPrefix("in de: ") } && title.contains { $0.hasPrefix("in fr: ") }, "\(title)")
        XCTAssertEqual(errors.filter { $0.path == "lists.l.sections[1].title" }.count, 1, "\(errors)")
        // The first language's own problem does not hide another's at the same path (French falls back to it).
        XCTAssertEqual(errors.filter { $0.path == "lists.l.sections[2].title" }.map { $0.message.hasPrefix("in de: ") }.sorted { !$0 && $1 },
                       [false, true], "\(errors)")
    }

    func testBadUsesAreDefinitionErrorsWithTheirPaths() {
        let errors = definitionErrors(#"""
        {"l":{"sections":[{"source":"c","groupBy":"g","keyLabels":{"a":1},"keyLabel":{},
          "title":"{$key|label:x}","row":{"title":"{a|prefix}","badge":"{n|nonzero:1}","detail":"{b|suffix:}"}}]}}
        """#)
        let paths = Set(errors.map(\.path))
        XCTAssertTrue(paths.contains("lists.l.sections[0].keyLabels.a"), "\(errors)")
        XCTAssertTrue(paths.contains("lists.l.sections[0].keyLabel"), "unknown keys are refused: \(errors)")
        XCTAssertTrue(paths.contains("lists.l.sections[0].title"), "\(errors)")
        XCTAssertTrue(paths.contains("lists.l.sections[0].row.title"), "\(errors)")
        XCTAssertTrue(paths.contains("lists.l.sections[0].row.badge"), "\(errors)")
        XCTAssertTrue(paths.contains("lists.l.sections[0].row.detail"), "\(errors)")
    }
}
