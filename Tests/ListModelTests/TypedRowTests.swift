import XCTest
@testable import ListModel

/// ``ListRow`` and ``ListSection``: the typed forms of the row and section objects.
final class TypedRowTests: XCTestCase {
    func list() -> ListSnapshot {
        let d = definition(#"""
        {"sections":[{"key":"a","type":"settings","title":"Settings","rows":[{"id":"x","title":"Wi-Fi","icon":"wifi","badge":"2","action":"app://wifi"}]},
          {"source":"c","groupBy":"g","type":"team","title":"{$key} ({$count})","header":{"title":"{$key}"},"insets":{"left":16},"lineSpacing":8,
           "sortBy":[{"field":"n"}],"accessibility":{"identifier":"cell","options":["section","row"]},
           "row":{"type":"person","title":"{t}","subtitle":"{s}","detail":"{d}","tagLength":2,"height":56}}]}
        """#)
        return ListSnapshot.build(definition: d, records: ["c": records(#"""
        [{"id":"p1","g":"k","n":1,"t":"Ada","s":"ada@x","d":""},{"id":"p2","g":"k","n":2,"t":"Bo","s":"bo@x","d":"lead"}]
        """#)])
    }

    func testRowsAreTypedWithEveryMember() {
        let l = list()
        XCTAssertEqual(l.row(at: ListIndexPath(section: 0, row: 0)),
                       ListRow(id: "x", type: "", indexPath: ListIndexPath(section: 0, row: 0), tag: TagRange(location: 0, length: 1),
                               title: "Wi-Fi", icon: "wifi", badge: "2", height: 44, action: "app://wifi"))
        XCTAssertEqual(l.row(at: ListIndexPath(section: 1, row: 1)),
                       ListRow(id: "p2", type: "person", indexPath: ListIndexPath(section: 1, row: 1), tag: TagRange(location: 3, length: 2),
                               title: "Bo", subtitle: "bo@x", detail: "lead", height: 56, accessibilityIdentifier: "cell_1_1"))
        // A text that renders empty is omitted, so it reads back as nil.
        XCTAssertNil(l.row(at: ListIndexPath(section: 1, row: 0))?.detail)
        XCTAssertNil(l.row(at: ListIndexPath(section: 1, row: 2)))
        XCTAssertNil(l.row(at: ListIndexPath(section: 2, row: 0)))
    }

    func testSectionsAreTyped() {
        let l = list()
        XCTAssertEqual(l.listSection(at: 1),
                       ListSection(index: 1, key: "k", type: "team", title: "k (2)",
                                   header: .init(title: "k", height: 28, accessibilityIdentifier: "cell_header_1"),
                                   insets: Insets(left: 16), lineSpacing: 8, rowCount: 2, totalRowCount: 2, firstTag: 1))
        let hidden = l.listSection(at: 1, view: ViewState(hidden: ["k"]))
        XCTAssertEqual(hidden?.hidden, true)
        XCTAssertEqual(hidden?.rowCount, 0)
        XCTAssertNil(l.listSection(at: 2))
    }

    func testRowObjectsMissingARequiredMemberAreRejected() {
        let complete = #"{"id":"r","type":"t","indexPath":{"section":0,"row":3},"tag":{"location":5,"length":1},"title":"T","height":44}"#
        XCTAssertEqual(ListRow(json: parse(complete))?.indexPath, ListIndexPath(section: 0, row: 3))
        XCTAssertNil(ListRow(json: parse(complete.replacingOccurrences(of: #""title":"T","#, with: ""))))
        XCTAssertNil(ListRow(json: parse(complete.replacingOccurrences(of: #""height":44"#, with: #""height":"44""#))))
    }
}
