import XCTest
@testable import ListModel

final class DefinitionTests: XCTestCase {
    static let contacts = #"""
    { "title": "Contacts", "sections": [
      { "key": "account", "type": "account", "title": "Account", "icon": "person.circle",
        "header": { "title": "Account", "height": 28 }, "footer": { "title": "Signed in" },
        "insets": { "top": 0, "left": 16, "bottom": 0, "right": 16 }, "lineSpacing": 8,
        "hidden": false, "accessibility": { "identifier": "settings_cell", "options": ["section", "row"] },
        "rows": [ { "id": "profile", "type": "profile", "title": "Profile", "subtitle": "Name, photo",
                    "icon": "person", "detail": "Ada", "badge": "2", "tagLength": 1, "height": 44,
                    "action": "app://profile" } ] },
      { "source": "people", "where": { "active": true }, "groupBy": "team",
        "type": "team", "title": "{$key} ({$count})", "icon": "person.3",
        "sectionOrder": "asc", "hiddenByDefault": ["Archived"],
        "sortBy": [ { "field": "name", "order": "asc" } ],
        "row": { "type": "person", "title": "{name}", "subtitle": "{email}", "detail": "{salary|currency:USD}",
                 "icon": "{avatar}", "badge": "{unread}", "tagLength": 2, "height": 56, "action": "app://people/{id}" },
        "typeField": "kind", "rowTypes": { "bot": { "title": "{name} (bot)", "tagLength": 1 } },
        "accessibility": { "identifier": "contact_cell", "options": ["section", "row"] } } ] }
    """#

    func testDecodesSpecExample() {
        let d = definition(DefinitionTests.contacts, name: "contacts")
        XCTAssertEqual(d.name, "contacts")
        XCTAssertEqual(d.title, "Contacts")
        XCTAssertEqual(d.sources, ["people"])
        XCTAssertTrue(d.reads(collection: "people"))
        XCTAssertFalse(d.reads(collection: "bots"))
        XCTAssertEqual(d.defaultHidden, [CodePointKey("Archived")])
        XCTAssertEqual(d.sections.count, 2)
        let b = d.sections[1].binding!
        XCTAssertEqual(b.rowTypes[CodePointKey("bot")]?.tagLength, 1)
        XCTAssertEqual(b.rowTypes[CodePointKey("bot")]?.height, 56)       // merged over row
        XCTAssertEqual(b.rowTypes[CodePointKey("bot")]?.title.source, "{name} (bot)")
        XCTAssertEqual(b.rowTypes[CodePointKey("bot")]?.type, "bot")
    }

    /// A `-0` height or line spacing is 0, served as `0` (it was served as `-0`).
    func testANegativeZeroNumberIsServedAsZero() throws {
        let d = definition(#"{"sections":[{"key":"k","lineSpacing":-0.0,"rows":[{"id":"x","title":"X","height":-0}]}]}"#)
        let l = ListSnapshot.build(definition: d, records: [:])
        var w = JSONWriter()
        l.writeRow(try XCTUnwrap(l.location(section: 0, row: 0, view: ViewState())), into: &w)
        let row = String(decoding: w.bytes, as: UTF8.self)
        XCTAssertTrue(row.contains(#""height":0"#), row)
        XCTAssertFalse(row.contains("-0"), row)
        var o = JSONWriter()
        o.value(l.outline())
        let outline = String(decoding: o.bytes, as: UTF8.self)
        XCTAssertTrue(outline.contains(#""lineSpacing":0"#), outline)
        XCTAssertFalse(outline.contains("-0"), outline)
    }

    func testFingerprintIsDeterministicAndChangesWithEdits() {
        let a = definition(DefinitionTests.contacts, name: "contacts")
        let b = definition(DefinitionTests.contacts, name: "contacts")
        XCTAssertEqual(a.fingerprint, b.fingerprint)
        let edited = definition(DefinitionTests.contacts.replacingOccurrences(of: "\"height\": 56", with: "\"height\": 57"), name: "contacts")
        XCTAssertNotEqual(a.fingerprint, edited.fingerprint)
        let renamed = definition(DefinitionTests.contacts, name: "other")
        XCTAssertNotEqual(a.fingerprint, renamed.fingerprint)
        // Member order does not matter (canonical encoding).
        let x = definition(#"{"title":"T","sections":[]}"#, name: "l")
        let y = definition(#"{"sections":[],"title":"T"}"#, name: "l")
        XCTAssertEqual(x.fingerprint, y.fingerprint)
        var h = FNV1a()
        h.combine(Array("a".utf8))
        XCTAssertEqual(h.value, 0xaf63dc4c8601ec8c)   // the published FNV-1a 64 test vector
    }

    func testDecodesManyListsInOrder() throws {
        let defs = try ListDefinitions.decode(parse(#"{"b":{"sections":[]},"a":{"sections":[]}}"#))
        XCTAssertEqual(defs.map(\.name), ["b", "a"])
    }

    func testEveryErrorWithItsPath() {
        let errors = definitionErrors(#"""
        { "bad name": { "sections": [] },
          "c": { "title": 3, "extra": 1, "sections": [
            { "type": "x", "rows": [ { "title": "no id" }, { "id": "a", "tagLength": -1, "height": "x" }, { "id": "a" } ] },
            { "key": "k", "insets": { "top": -1, "middle": 2 }, "lineSpacing": "x", "where": {} },
            { "key": "k", "header": { "title": "{name}" }, "footer": 5, "accessibility": { "options": ["column"] } },
            { "source": "bad/name", "groupBy": "team", "key": "x", "hidden": true, "rows": [],
              "row": { "title": "{name|bold}", "subtitle": "{a", "tagLength": 1.5, "colour": "red" },
              "rowTypes": { "bot": { "type": "bot" } }, "sortBy": [ { "order": "up" } ], "sectionOrder": 5 },
            { "source": "people", "row": { "tagLength": 10000000000000000000 } },
            { "source": "people", "key": "p", "title": "{$count}", "sectionOrder": "asc" },
            "nope"
          ] },
          "d": { "sections": {} },
          "e": {},
          "f": []
        }
        """#)
        let got = Set(errors.map { "\($0.path): \($0.message)" })
        let expected: [String] = [
            "lists.bad name: invalid list name (must match ^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$)",
            "lists.c.extra: unknown key",
            "lists.c.title: expected a string, got number",
            "lists.c.sections[0].key: missing (required)",
            "lists.c.sections[0].rows[0].id: missing (required)",
            "lists.c.sections[0].rows[1].tagLength: must be in 0…1000000",
            "lists.c.sections[0].rows[1].height: expected a number, got string",
            "lists.c.sections[0].rows[2].id: duplicate literal row id \"a\"",
            "lists.c.sections[1].where: only allowed in a data-bound section (one with \"source\")",
            "lists.c.sections[1].insets.middle: unknown key",
            "lists.c.sections[1].insets.top: must not be negative",
            "lists.c.sections[1].lineSpacing: expected a number, got string",
            "lists.c.sections[2].key: duplicate section key \"k\" (section keys are unique within a list)",
            "lists.c.sections[2].header.title: bad template: section templates cannot read record fields ('{name}'); use {$key} or {$count}",
            "lists.c.sections[2].footer: expected an object, got number",
            "lists.c.sections[2].accessibility.identifier: missing (required)",
            "lists.c.sections[2].accessibility.options[0]: unknown option \"column\" (use \"section\" and/or \"row\")",
            "lists.c.sections[3].rows: not allowed in a data-bound section (one with \"source\")",
            "lists.c.sections[3].key: not allowed together with groupBy (each group's value is its key)",
            "lists.c.sections[3].hidden: not allowed together with groupBy; list keys in hiddenByDefault instead",
            "lists.c.sections[3].source: invalid collection name (must match ^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$)",
            "lists.c.sections[3].sectionOrder: expected \"asc\", \"desc\" or an array of keys",
            "lists.c.sections[3].sortBy[0].field: missing (required)",
            "lists.c.sections[3].sortBy[0].order: expected \"asc\" or \"desc\"",
            "lists.c.sections[3].row.colour: unknown key",
            "lists.c.sections[3].row.title: bad template: unknown formatter 'bold'",
            "lists.c.sections[3].row.subtitle: bad template: unclosed '{' at character 0",
            "lists.c.sections[3].row.tagLength: expected an integer, got a fraction",
            "lists.c.sections[3].rowTypes: needs typeField",
            // Reported though the row template itself has errors.
            "lists.c.sections[3].rowTypes.bot.type: not allowed in rowTypes (the entry's name is the type)",
            "lists.c.sections[4].key: missing (required without groupBy)",
            "lists.c.sections[4].row.tagLength: must be in 0…1000000",
            "lists.c.sections[5].sectionOrder: only meaningful with groupBy",
            "lists.c.sections[5].row: missing (required in a data-bound section)",
            "lists.c.sections[6]: expected an object, got string",
            "lists.d.sections: expected an array, got object",
            "lists.e.sections: missing (required)",
            "lists.f: expected an object, got array",
        ]
        for e in expected { XCTAssertTrue(got.contains(e), "missing error: \(e)\n got: \(got.sorted())") }
        XCTAssertEqual(got.count, expected.count, "unexpected extra errors: \(got.subtracting(expected).sorted())")
    }

    func testRowTypesTypeKeyIsAnError() {
        let errors = definitionErrors(#"""
        {"l":{"sections":[{"source":"p","key":"k","row":{"title":"{a}"},"typeField":"kind","rowTypes":{"bot":{"type":"x","height":-1}}}]}}
        """#)
        XCTAssertEqual(errors.map(\.path).sorted(), ["lists.l.sections[0].rowTypes.bot.height", "lists.l.sections[0].rowTypes.bot.type"])
    }

    /// A page token holds a position's sort values, 64 at most: a spec with more killed the
    /// server on its first page but the last (the token could not be written), and with 65–82 the
    /// next page refused its own token.
    func testAtMost64SortFields() {
        func spec(_ n: Int) -> String {
            let fields = Array(repeating: #"{"field":"v"}"#, count: n).joined(separator: ",")
            return #"{"l":{"sections":[{"source":"p","key":"k","sortBy":[\#(fields)],"row":{"title":"{v}"}}]}}"#
        }
        XCTAssertNoThrow(try ListDefinitions.decode(parse(spec(64))))
        XCTAssertEqual(definitionErrors(spec(65)).map(\.path), ["lists.l.sections[0].sortBy"])
        XCTAssertEqual(definitionErrors(spec(90)).map(\.message), ["at most 64 fields (it has 90)"])
    }

    func testNotAnObject() {
        XCTAssertThrowsError(try ListDefinitions.decode(.array([]))) { e in
            XCTAssertEqual((e as? DefinitionErrors)?.errors.first?.path, "lists")
        }
    }

    func testNames() {
        XCTAssertTrue(Names.isValid("a"))
        XCTAssertTrue(Names.isValid("A0._~-z"))
        XCTAssertTrue(Names.isValid(String(repeating: "a", count: 128)))
        XCTAssertFalse(Names.isValid(String(repeating: "a", count: 129)))
        XCTAssertFalse(Names.isValid(""))
        XCTAssertFalse(Names.isValid("-a"))
        XCTAssertFalse(Names.isValid("a b"))
        XCTAssertFalse(Names.isValid("é"))
    }
}
