import XCTest
@testable import ListModel

final class BuildTests: XCTestCase {
    let people = records(#"""
    [ {"id":"p3","name":"Cy","email":"cy@x","team":"Design","active":true,"salary":10,"kind":"human"},
      {"id":"p1","name":"Ada","email":"ada@x","team":"Eng","active":true,"salary":1234.5,"kind":"bot"},
      {"id":"p2","name":"Bo","team":"Design","active":true,"salary":5},
      {"id":"p4","name":"Di","team":"Eng","active":false},
      {"id":"p5","name":"Ed","active":true} ]
    """#)

    func testSpecExampleListShape() throws {
        let d = definition(DefinitionTests.contacts, name: "contacts")
        let list = ListSnapshot.build(definition: d, records: ["people": people])
        XCTAssertEqual(list.sectionKeys, ["account", "", "Design", "Eng"])
        XCTAssertEqual(list.rowIDs, [["profile"], ["p5"], ["p2", "p3"], ["p1"]])
        XCTAssertEqual(list.totalRowCount, 5)
        // Tags: profile 1, p5 2, p2 2, p3 2, p1 (bot) 1
        XCTAssertEqual(list.tagCount, 8)

        let o = list.outline(view: d.defaultView)
        XCTAssertEqual(o["list"], "l")
        XCTAssertEqual(o["title"], "Contacts")
        XCTAssertEqual(o["sectionCount"], 4)
        XCTAssertEqual(o["rowCount"], 5)
        XCTAssertEqual(o["tagCount"], 8)
        let s0 = o["sections"]!.arrayValue![0]
        XCTAssertEqual(s0, parse(#"""
        {"index":0,"key":"account","type":"account","title":"Account","icon":"person.circle",
         "header":{"title":"Account","height":28,"accessibilityIdentifier":"settings_cell_header_0"},
         "footer":{"title":"Signed in","height":28,"accessibilityIdentifier":"settings_cell_footer_0"},
         "insets":{"top":0,"left":16,"bottom":0,"right":16},"lineSpacing":8,"hidden":false,
         "rowCount":1,"totalRowCount":1,"firstTag":0}
        """#))
        let s2 = o["sections"]!.arrayValue![2]
        XCTAssertEqual(s2["title"], "Design (2)")
        XCTAssertEqual(s2["firstTag"], 3)
        XCTAssertNil(s2["header"], "absent, never null")
        XCTAssertNil(s2["footer"], "absent, never null")
        XCTAssertEqual(s2["icon"], "person.3")

        XCTAssertEqual(list.rowJSON(0, 0), parse(#"""
        {"id":"profile","type":"profile","indexPath":{"section":0,"row":0},"tag":{"location":0,"length":1},
         "title":"Profile","subtitle":"Name, photo","detail":"Ada","icon":"person","badge":"2","height":44,
         "accessibilityIdentifier":"settings_cell_0_0","action":"app://profile"}
        """#))
        // Optional fields that render "" are omitted; typeField + rowTypes merge.
        XCTAssertEqual(list.rowJSON(3, 0), parse(#"""
        {"id":"p1","type":"bot","indexPath":{"section":3,"row":0},"tag":{"location":7,"length":1},
         "title":"Ada (bot)","subtitle":"ada@x","detail":"$1,234.50","height":56,
         "accessibilityIdentifier":"contact_cell_3_0","action":"app://people/p1"}
        """#))
        XCTAssertEqual(list.rowJSON(2, 0), parse(#"""
        {"id":"p2","type":"person","indexPath":{"section":2,"row":0},"tag":{"location":3,"length":2},
         "title":"Bo","detail":"$5.00","height":56,"accessibilityIdentifier":"contact_cell_2_0","action":"app://people/p2"}
        """#))
        // Row JSON key order, as the contract fixes it.
        var w = JSONWriter()
        list.writeRow(list.location(section: 2, row: 1, view: ViewState())!, into: &w)
        XCTAssertEqual(text(w), #"{"id":"p3","type":"human","indexPath":{"section":2,"row":1},"tag":{"location":5,"length":2},"title":"Cy","subtitle":"cy@x","detail":"$10.00","height":56,"accessibilityIdentifier":"contact_cell_2_1","action":"app://people/p3"}"#)
    }

    func testAccessibilityOptions() {
        func ids(_ options: String) -> (String?, String?) {
            let d = definition(#"{"sections":[{"key":"a"},{"key":"k","accessibility":{"identifier":"c"\#(options)},"header":{},"rows":[{"id":"r0"},{"id":"r1"}]}]}"#)
            let l = ListSnapshot.build(definition: d, records: [:])
            let o = l.outline()
            return (l.rowJSON(1, 1)["accessibilityIdentifier"]?.stringValue, o["sections"]!.arrayValue![1]["header"]?["accessibilityIdentifier"]?.stringValue)
        }
        XCTAssertTrue(ids(#","options":["section","row"]"#) == ("c_1_1", "c_header_1"))
        XCTAssertTrue(ids(#","options":["row","section"]"#) == ("c_1_1", "c_header_1"))
        XCTAssertTrue(ids(#","options":["section"]"#) == ("c_1", "c_header_1"))
        XCTAssertTrue(ids(#","options":["row"]"#) == ("c_1", "c_header"))
        XCTAssertTrue(ids("") == ("c", "c_header"))
        let d = definition(#"{"sections":[{"key":"k","rows":[{"id":"r0"}]}]}"#)
        XCTAssertNil(ListSnapshot.build(definition: d, records: [:]).rowJSON(0, 0)["accessibilityIdentifier"])
        XCTAssertEqual(ListSnapshot.build(definition: d, records: [:]).rowJSON(0, 0)["height"], 44)
    }

    func sorted(_ sortBy: String, _ recs: String) -> [String] {
        let d = definition(#"{"sections":[{"source":"c","key":"k","sortBy":\#(sortBy),"row":{"title":"{id}"}}]}"#)
        return ListSnapshot.build(definition: d, records: ["c": records(recs)]).rowIDs[0]
    }

    func testSortNumbersNumerically() {
        XCTAssertEqual(sorted(#"[{"field":"v"}]"#, #"[{"id":"a","v":10},{"id":"b","v":9},{"id":"c","v":-1.5},{"id":"d","v":100}]"#), ["c", "b", "a", "d"])
        XCTAssertEqual(sorted(#"[{"field":"v","order":"desc"}]"#, #"[{"id":"a","v":10},{"id":"b","v":9.5}]"#), ["a", "b"])
    }

    func testSortStringsByCodePoints() {
        // "Z" (0x5A) < "a" (0x61) < "é" (0xE9); not locale order.
        XCTAssertEqual(sorted(#"[{"field":"v"}]"#, #"[{"id":"1","v":"é"},{"id":"2","v":"a"},{"id":"3","v":"Z"},{"id":"4","v":"ab"}]"#), ["3", "2", "4", "1"])
    }

    func testSortBooleans() {
        XCTAssertEqual(sorted(#"[{"field":"v"}]"#, #"[{"id":"a","v":true},{"id":"b","v":false}]"#), ["b", "a"])
        XCTAssertEqual(sorted(#"[{"field":"v","order":"desc"}]"#, #"[{"id":"a","v":false},{"id":"b","v":true}]"#), ["b", "a"])
    }

    func testMissingAndNullSortLastInBothDirections() {
        let recs = #"[{"id":"a"},{"id":"b","v":null},{"id":"c","v":2},{"id":"d","v":1},{"id":"e","v":{}}]"#
        XCTAssertEqual(sorted(#"[{"field":"v"}]"#, recs), ["d", "c", "a", "b", "e"])
        XCTAssertEqual(sorted(#"[{"field":"v","order":"desc"}]"#, recs), ["c", "d", "a", "b", "e"])
    }

    func testMixedTypesTotalOrder() {
        let recs = #"[{"id":"s","v":"x"},{"id":"n","v":1},{"id":"b","v":true}]"#
        XCTAssertEqual(sorted(#"[{"field":"v"}]"#, recs), ["b", "n", "s"])
        XCTAssertEqual(sorted(#"[{"field":"v","order":"desc"}]"#, recs), ["s", "n", "b"])
    }

    func testTiesBreakByIdAndDefaultIsId() {
        XCTAssertEqual(sorted(#"[{"field":"v"}]"#, #"[{"id":"b","v":1},{"id":"a","v":1},{"id":"c","v":0}]"#), ["c", "a", "b"])
        XCTAssertEqual(sorted("[]", #"[{"id":"b"},{"id":"B"},{"id":"a"},{"id":"a1"}]"#), ["B", "a", "a1", "b"])
        XCTAssertEqual(sorted(#"[{"field":"x"},{"field":"y","order":"desc"}]"#,
                              #"[{"id":"a","x":1,"y":1},{"id":"b","x":1,"y":2},{"id":"c","x":0,"y":0}]"#), ["c", "b", "a"])
    }

    func testDottedSortAndWhereAndGroupBy() {
        let d = definition(#"""
        {"sections":[{"source":"c","where":{"a.ok":true,"n":1},"groupBy":"a.g","sortBy":[{"field":"a.s"}],"row":{"title":"{a.s}"}}]}
        """#)
        let l = ListSnapshot.build(definition: d, records: ["c": records(#"""
        [{"id":"1","n":1,"a":{"ok":true,"g":"x","s":2}},{"id":"2","n":1.0,"a":{"ok":true,"g":"x","s":1}},
         {"id":"3","n":1,"a":{"ok":false,"g":"x"}},{"id":"4","n":2,"a":{"ok":true,"g":"y"}},{"id":"5","n":1,"a":{"ok":true,"g":7}},
         {"id":"6","n":1,"a":{"ok":true}}]
        """#)])
        XCTAssertEqual(l.sectionKeys, ["", "7", "x"])
        XCTAssertEqual(l.rowIDs, [["6"], ["5"], ["2", "1"]])
    }

    func testSectionOrders() {
        func keys(_ order: String) -> [String] {
            let d = definition(#"{"sections":[{"source":"c","groupBy":"g","sectionOrder":\#(order),"row":{}}]}"#)
            let recs = records(#"[{"id":"1","g":"b"},{"id":"2","g":"a"},{"id":"3","g":"c"},{"id":"4","g":"B"},{"id":"5"}]"#)
            return ListSnapshot.build(definition: d, records: ["c": recs]).sectionKeys
        }
        XCTAssertEqual(keys(#""asc""#), ["", "B", "a", "b", "c"])
        XCTAssertEqual(keys(#""desc""#), ["c", "b", "a", "B", ""])
        XCTAssertEqual(keys(#"["c","zz","a"]"#), ["c", "a", "", "B", "b"])
    }

    func testKeyedDataSectionExistsWhenEmpty() {
        let d = definition(#"{"sections":[{"source":"c","key":"all","title":"{$key}: {$count}","where":{"x":1},"row":{}}]}"#)
        let l = ListSnapshot.build(definition: d, records: [:])
        XCTAssertEqual(l.sectionKeys, ["all"])
        XCTAssertEqual(l.outline()["sections"]?.arrayValue?[0]["title"], "all: 0")
    }

    func testDuplicateIdsFirstSpecWinsAndAreCounted() {
        let d = definition(#"""
        {"sections":[
          {"key":"lit","rows":[{"id":"p2","title":"literal"}]},
          {"source":"people","key":"all","row":{"title":"{name}"}},
          {"source":"people","groupBy":"team","row":{"title":"{name} again"}},
          {"source":"bots","key":"bots","row":{"title":"bot {id}"}}
        ]}
        """#)
        let l = ListSnapshot.build(definition: d, records: [
            "people": records(#"[{"id":"p1","name":"A","team":"t"},{"id":"p2","name":"B","team":"t"},{"id":"p3","name":"C","team":"u"}]"#),
            "bots": records(#"[{"id":"p1"},{"id":"b1"}]"#),
        ])
        XCTAssertEqual(l.sectionKeys, ["lit", "all", "bots"])
        XCTAssertEqual(l.rowIDs, [["p2"], ["p1", "p3"], ["b1"]])
        // p2: people×2 dropped; p1: people(group) + bots dropped; p3: group dropped.
        XCTAssertEqual(l.duplicateRowCount, 5)
        XCTAssertEqual(l.rowJSON(0, 0)["title"], "literal")
    }

    /// A build whose rows are made and sections sorted on several threads equals the serial
    /// build: ids are claimed in record order whatever the parts (here the second copy of an id
    /// lies in a later part than the first), and every section is sorted.
    func testBuildInParallelPartsEqualsSerialBuild() {
        let d = definition(#"""
        {"sections":[
          {"source":"people","where":{"active":true},"groupBy":"team","sortBy":[{"field":"name"}],
           "row":{"title":"{name}","subtitle":"{team}"}},
          {"source":"people","key":"inactive","sortBy":[{"field":"n","order":"desc"}],"row":{"title":"{name}"}},
          {"source":"bots","key":"bots","row":{"title":"bot {id}"}}
        ]}
        """#)
        let count = 4 * ListSnapshot.rowsPerPart + 123
        let people: [JSONValue] = (0..<count).map { i in
            // Every 7th record repeats the id of one 3 parts earlier (the first stays).
            let id = i % 7 == 0 && i >= 3 * ListSnapshot.rowsPerPart ? "p\(i - 3 * ListSnapshot.rowsPerPart)" : "p\(i)"
            return parse(#"{"id":"\#(id)","name":"n\#((i * 7919) % 1000)","team":"t\#(i % 5)","active":\#(i % 3 != 0),"n":\#(i % 97)}"#)
        }
        let bots = (0..<3000).map { i in parse(#"{"id":"p\#(i * 11)"}"#) }
        let serial = ListSnapshot.build(definition: d, records: ["people": people, "bots": bots])
        let parallel = ListSnapshot.build(definition: d, records: ["people": people, "bots": bots], parallelism: .threads)
        XCTAssertEqual(parallel.sectionKeys, ["t0", "t1", "t2", "t3", "t4", "inactive", "bots"])
        XCTAssertEqual(parallel.rowIDs, serial.rowIDs)
        XCTAssertEqual(parallel.fullText(), serial.fullText())
        XCTAssertEqual(parallel.duplicateRowCount, serial.duplicateRowCount)
        // The claims one at a time: the owners of each section and the duplicates counted.
        var lastSpec: [String: Int] = [:]
        var owners = [Set<String>](repeating: [], count: 3)
        var expectedDuplicates = 0
        for (spec, records) in [(0, people), (1, people), (2, bots)] {
            for case .object(let o) in records {
                guard case .string(let id)? = o["id"], spec != 0 || o["active"] == .bool(true) else { continue }
                if let last = lastSpec[id] {
                    if last != spec { expectedDuplicates += 1 }
                } else {
                    owners[spec].insert(id)
                }
                lastSpec[id] = spec
            }
        }
        XCTAssertEqual(serial.duplicateRowCount, expectedDuplicates)
        XCTAssertGreaterThan(expectedDuplicates, 3000)
        XCTAssertEqual(Set(parallel.rowIDs[0..<5].joined()), owners[0])
        XCTAssertEqual(Set(parallel.rowIDs[5]), owners[1])
        XCTAssertEqual(Set(parallel.rowIDs[6]), owners[2])
        // The first record of an id wins, whichever part the second lies in.
        var firstName: [String: String] = [:]
        for case .object(let o) in people {
            if case .string(let id)? = o["id"], case .string(let name)? = o["name"], firstName[id] == nil { firstName[id] = name }
        }
        let full = parse(parallel.fullText())
        for section in full.arrayValue![1].arrayValue! where section["key"] != "bots" {
            for row in section["rows"]!.arrayValue! {
                XCTAssertEqual(row["title"]?.stringValue, firstName[row["id"]!.stringValue!], "\(row["id"]!)")
            }
        }
        // Sorted: names ascending within each team.
        let firstTeam = parallel.rowIDs[0].map { id in Int(id.dropFirst())! }
        let names = firstTeam.map { (($0 * 7919) % 1000) }
        XCTAssertEqual(names.map { "n\($0)" }, names.map { "n\($0)" }.sorted())
    }

    func testRuntimeSectionKeyCollisionIsDisambiguated() {
        let d = definition(#"""
        {"sections":[{"key":"Eng","rows":[{"id":"x"}]},{"source":"p","groupBy":"team","title":"{$key}","row":{}}]}
        """#)
        let l = ListSnapshot.build(definition: d, records: ["p": records(#"[{"id":"a","team":"Eng"},{"id":"b","team":"Ops"}]"#)])
        XCTAssertEqual(l.sectionKeys, ["Eng", "Eng#1", "Ops"])
        XCTAssertEqual(l.outline()["sections"]?.arrayValue?[1]["title"], "Eng")
    }

    /// A configured key stays its section's when a group before it takes the same value, and
    /// when a later group's value is the suffixed key.
    func testAConfiguredSectionKeepsItsKeyWhateverTheGroupsBeforeIt() {
        let d = definition(#"""
        {"sections":[{"source":"p","groupBy":"team","title":"{$key}","row":{}},{"key":"Eng","rows":[{"id":"x"}]}]}
        """#)
        var l = ListSnapshot.build(definition: d, records: ["p": records(#"[{"id":"a","team":"Eng"},{"id":"b","team":"Ops"}]"#)])
        XCTAssertEqual(l.sectionKeys, ["Eng#0", "Ops", "Eng"])
        XCTAssertEqual(l.outline()["sections"]?.arrayValue?[0]["title"], "Eng", "{$key} is the group's value")
        l.apply(.upsert(["id": "c", "team": "Eng#0"]), collection: "p")
        XCTAssertEqual(l.sectionKeys, ["Eng#0", "Eng#0#0", "Ops", "Eng"],
                       "groups in their order: group Eng took Eng#0 first, so group Eng#0 is suffixed in turn")
        l.apply(.delete(id: "a"), collection: "p")
        XCTAssertEqual(l.sectionKeys, ["Eng#0", "Ops", "Eng"])
    }

    func testRecordsWithoutStringIdAreIgnored() {
        let d = definition(#"{"sections":[{"source":"c","key":"k","row":{}}]}"#)
        let l = ListSnapshot.build(definition: d, records: ["c": records(#"[{"id":1},{"name":"x"},5,{"id":"ok"}]"#)])
        XCTAssertEqual(l.rowIDs, [["ok"]])
    }

    func testTitleAndFieldsRenderedAndOmitted() {
        let d = definition(#"""
        {"sections":[{"source":"c","key":"k","row":{"title":"{missing}","subtitle":"{e}","detail":"{e|default:-}","badge":"{n}","icon":"{b}","action":"{nil}"}}]}
        """#)
        let l = ListSnapshot.build(definition: d, records: ["c": records(#"[{"id":"a","e":"","n":0,"b":false,"nil":null}]"#)])
        XCTAssertEqual(l.rowJSON(0, 0), parse(#"""
        {"id":"a","type":"","indexPath":{"section":0,"row":0},"tag":{"location":0,"length":1},"title":"","detail":"-","icon":"false","badge":"0","height":44}
        """#))
    }
}
