import XCTest
@testable import ListModel

/// A row's `image`, `accessory`, `enabled`, `value`, `actions` and `data`: the strict decoder,
/// the JSON shape (an absent member is absent, never `null`), the typed row, and `changes`.
final class RowExtrasTests: XCTestCase {
    let d = definition(#"""
    {"sections":[
      {"key":"settings","rows":[
        {"id":"wifi","title":"Wi-Fi","accessory":"toggle","value":true,"image":"https://x.io/wifi.png"},
        {"id":"about","title":"About","accessory":"disclosure","enabled":false,
         "actions":[{"id":"hide","title":"Hide"}]},
        {"id":"plain","title":"Plain","accessory":"none"}]},
      {"source":"tasks","key":"tasks","sortBy":[{"field":"n"}],
       "row":{"title":"{name}","image":"{img}","accessory":"{acc|default:disclosure}","enabled":"{on}",
              "value":"{done}","actions":[{"id":"flag","title":"{flagTitle}"},{"id":"delete","title":"Delete","style":"destructive"}],
              "data":["n","done","meta.tags","missing"]},
       "typeField":"kind","rowTypes":{"bare":{"title":"bare {name}","data":[],"actions":[],"accessory":"none"}}}
    ]}
    """#)

    func snapshot(_ tasks: [JSONValue]) -> ListSnapshot { ListSnapshot.build(definition: d, records: ["tasks": tasks]) }

    let t1: JSONValue = ["id": "t1", "n": 1, "name": "Write", "img": "https://x.io/1.png", "on": true, "done": false,
                         "flagTitle": "Flag", "meta": ["tags": ["a", "b"]]]

    func testEveryMemberIsWrittenWithItsType() throws {
        let s = snapshot([t1])
        let row = s.rowJSON(1, 0)
        XCTAssertEqual(row["image"], "https://x.io/1.png")
        XCTAssertEqual(row["accessory"], "disclosure")
        XCTAssertNil(row["enabled"], "enabled is written only when false")
        XCTAssertEqual(row["value"], false)
        XCTAssertEqual(row["actions"], [["id": "flag", "title": "Flag", "style": "default"],
                                        ["id": "delete", "title": "Delete", "style": "destructive"]])
        XCTAssertEqual(row["data"], ["n": 1, "done": false, "meta.tags": ["a", "b"]], "raw values; a missing field is left out")

        let typed = try XCTUnwrap(s.row(at: ListIndexPath(section: 1, row: 0)))
        XCTAssertEqual(typed.image, "https://x.io/1.png")
        XCTAssertEqual(typed.accessory, .disclosure)
        XCTAssertTrue(typed.enabled)
        XCTAssertEqual(typed.value, false)
        XCTAssertEqual(typed.actions, [.init(id: "flag", title: "Flag"), .init(id: "delete", title: "Delete", style: .destructive)])
        XCTAssertEqual(typed.data?["meta.tags"], ["a", "b"])

        let wifi = s.rowJSON(0, 0), about = s.rowJSON(0, 1)
        XCTAssertEqual(wifi["accessory"], "toggle")
        XCTAssertEqual(wifi["value"], true)
        XCTAssertEqual(wifi["image"], "https://x.io/wifi.png")
        XCTAssertEqual(about["enabled"], false)
        XCTAssertEqual(about["actions"], [["id": "hide", "title": "Hide", "style": "default"]])
        XCTAssertEqual(try XCTUnwrap(s.row(at: ListIndexPath(section: 0, row: 1))).enabled, false)
    }

    func testAbsentMembersAreAbsentNeverNull() throws {
        let s = snapshot([["id": "t2", "n": 2, "name": "Bare", "acc": "sparkles", "on": "yes", "done": nil,
                           "flagTitle": "", "n2": nil],
                          ["id": "t3", "n": 3, "name": "B", "kind": "bare", "on": false]])
        let row = s.rowJSON(1, 0)
        for key in ["image", "accessory", "enabled", "value"] {
            XCTAssertNil(row[key], "\(key): an empty image, an unknown accessory, a value that is not true/false")
        }
        XCTAssertEqual(row["actions"], [["id": "delete", "title": "Delete", "style": "destructive"]], "an empty title drops the action")
        XCTAssertEqual(row["data"], ["n": 2], "null and missing fields are left out")
        let nested = snapshot([["id": "t4", "n": 4, "name": "N", "meta": ["tags": ["x": nil, "y": [nil, ["z": nil, "w": 1]]]]]])
        XCTAssertEqual(nested.rowJSON(1, 0)["data"], ["n": 4, "meta.tags": ["y": [nil, ["w": 1]]]],
                       "a null member inside a field is left out too; an array keeps its null elements")
        let bare = s.rowJSON(1, 1)
        XCTAssertEqual(bare["enabled"], false)
        XCTAssertEqual(bare["data"], [:], "data: [] still writes an object")
        for key in ["actions", "accessory", "value", "image"] { XCTAssertNil(bare[key], key) }
        let plain = s.rowJSON(0, 2)
        for key in ["image", "accessory", "enabled", "value", "actions", "data"] { XCTAssertNil(plain[key], key) }
        var w = JSONWriter()
        s.writeRow(try XCTUnwrap(s.location(section: 0, row: 2, view: ViewState())), into: &w)
        XCTAssertFalse(text(w).contains("null"), text(w))

        let typed = try XCTUnwrap(s.row(at: ListIndexPath(section: 0, row: 2)))
        XCTAssertNil(typed.accessory)
        XCTAssertTrue(typed.enabled)
        XCTAssertNil(typed.data)
        XCTAssertEqual(typed.actions, [])
    }

    func testAChangedValueIsAnUpdatedRowInChanges() throws {
        let old = snapshot([t1, ["id": "t9", "n": 9, "name": "Other"]])
        var done = try XCTUnwrap(t1.objectValue)
        done["done"] = true
        let new = old.applying(.upsert(.object(done)), collection: "tasks")
        let u = try XCTUnwrap(new.changes(from: old, changedRowIDs: ["t1"], view: ViewState(), maxChanges: 100))
        XCTAssertEqual(u.rows.updated, [ListIndexPath(section: 1, row: 0)])
        XCTAssertEqual(u.operationCount, 1)
        XCTAssertEqual(new.rowJSON(1, 0)["value"], true)

        var tagged = done
        tagged["meta"] = ["tags": ["c"]]
        let again = new.applying(.upsert(.object(tagged)), collection: "tasks")
        XCTAssertEqual(again.changes(from: new, changedRowIDs: ["t1"], view: ViewState(), maxChanges: 100)?.rows.updated,
                       [ListIndexPath(section: 1, row: 0)], "a data field too")
        XCTAssertEqual(again.changes(from: again, changedRowIDs: ["t1"], view: ViewState(), maxChanges: 100)?.isEmpty, true)
    }

    func testTheDecoderIsStrict() {
        let errors = definitionErrors(#"""
        {"l":{"sections":[
          {"key":"a","rows":[{"id":"r","title":"R","accessory":"chevron","enabled":"yes","value":1,"data":["x"],
                              "actions":[{"id":"x","title":"X","style":"red"},{"id":"x","title":"Y"},{"title":"Z","extra":1}]}]},
          {"source":"s","key":"b","row":{"title":"T","accessory":"arrow","enabled":"yes","value":false,"actions":{},
                                         "data":["a..b", 3, "a", "a"],"image":"{x|nope}"}}
        ]}}
        """#)
        let byPath = Dictionary(errors.map { ($0.path, $0.message) }, uniquingKeysWith: { $0 + " / " + $1 })
        let base = "lists.l.sections"
        XCTAssertEqual(byPath["\(base)[0].rows[0].accessory"], "expected \"none\", \"disclosure\", \"checkmark\", \"detail\" or \"toggle\"")
        XCTAssertEqual(byPath["\(base)[0].rows[0].enabled"], "expected a boolean, got string")
        XCTAssertEqual(byPath["\(base)[0].rows[0].value"], "expected a boolean, got number")
        XCTAssertEqual(byPath["\(base)[0].rows[0].data"], "only allowed in a data-bound row (a literal row has no record)")
        XCTAssertEqual(byPath["\(base)[0].rows[0].actions[0].style"], "expected \"default\" or \"destructive\"")
        XCTAssertEqual(byPath["\(base)[0].rows[0].actions[1].id"], "duplicate action id \"x\" in this row")
        XCTAssertEqual(byPath["\(base)[0].rows[0].actions[2].id"], "missing (required)")
        XCTAssertEqual(byPath["\(base)[0].rows[0].actions[2].extra"], "unknown key")
        XCTAssertEqual(byPath["\(base)[1].row.accessory"],
                       "expected \"none\", \"disclosure\", \"checkmark\", \"detail\" or \"toggle\", or a template rendering one")
        XCTAssertEqual(byPath["\(base)[1].row.enabled"], "expected true, false or a template rendering one of them")
        XCTAssertNil(byPath["\(base)[1].row.value"], "a boolean is fine")
        XCTAssertEqual(byPath["\(base)[1].row.actions"], "expected an array of {\"id\", \"title\", \"style\"}, got object")
        XCTAssertEqual(byPath["\(base)[1].row.data[0]"], "expected a field path like \"a\" or \"a.b\"")
        XCTAssertEqual(byPath["\(base)[1].row.data[1]"], "expected a string, got number")
        XCTAssertEqual(byPath["\(base)[1].row.data[3]"], "duplicate \"a\"")
        XCTAssertEqual(byPath["\(base)[1].row.image"], "bad template: unknown formatter 'nope'")
        XCTAssertEqual(errors.count, 15, "\(errors)")
    }
}
