import XCTest
@testable import ListModel

/// Section keys are told apart by code points everywhere, not only in their order: "é" (U+00E9)
/// and "e" with a combining acute (U+0065 U+0301) are two sections — to views, `hiddenByDefault`
/// and `keyLabels` too — though Swift's `String` calls the two equal.
final class CodePointKeyTests: XCTestCase {
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    let d = definition(#"""
    {"sections":[
      {"source":"items","groupBy":"g","type":"g","title":"{$key|label}","hiddenByDefault":["\#(composed)"],
       "keyLabels":{"\#(composed)":"composed"},"row":{"title":"{id}"}}
    ]}
    """#)

    private var snapshot: ListSnapshot {
        ListSnapshot.build(definition: d, records: ["items": [["id": "c1", "g": .string(Self.composed)],
                                                              ["id": "d1", "g": .string(Self.decomposed)]]])
    }

    func testTheTwoSpellingsAreTwoSections() throws {
        XCTAssertEqual(Self.composed, Self.decomposed, "Swift's String calls them equal")
        let s = snapshot
        XCTAssertEqual(s.sections.map(\.key).map { Array($0.unicodeScalars) }, [Array(Self.decomposed.unicodeScalars), Array(Self.composed.unicodeScalars)],
                       "two sections, in code-point order")
        XCTAssertEqual(d.defaultHidden, [CodePointKey(Self.composed)])
        let outline = s.outline(view: d.defaultView)
        let sections = try XCTUnwrap(outline["sections"]?.arrayValue)
        XCTAssertEqual(sections.map { $0["hidden"] }, [false, true], "hiddenByDefault names only the composed one")
        XCTAssertEqual(sections.map { $0["title"] }, [.string(Self.decomposed), "composed"], "keyLabels labels only the composed one")
        let view = ViewState(hidden: [Self.decomposed])
        XCTAssertTrue(view.isHidden(Self.decomposed))
        XCTAssertFalse(view.isHidden(Self.composed), "a view hiding one spelling does not hide the other")
        XCTAssertEqual(ViewState(hidden: [Self.composed, Self.decomposed]).hidden.count, 2)
        XCTAssertNotEqual(ViewState(hidden: [Self.composed]).fingerprint, ViewState(hidden: [Self.decomposed]).fingerprint)
    }
}
