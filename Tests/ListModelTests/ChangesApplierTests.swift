import TestSupport
import XCTest
@testable import ListModel

/// The applier on its own: valid answers give the expected outline, invalid
/// ones are refused with the Python's reasons.
final class ChangesApplierTests: XCTestCase {
    typealias S = ChangesApplier.Section

    let old: [S] = [S(key: "a", rows: ["1", "2", "3"]), S(key: "b", rows: ["4"]), S(key: "c", rows: ["5", "6"])]

    func changes(_ json: String) -> [UInt8] {
        bytes(parse(#"{"list":"l","from":1,"to":2,"reload":false,"#
              + #""sections":{"deleted":[],"inserted":[],"moved":[],"updated":[]},"rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]}}"#
              ).merging(parse(json)))
    }

    func bytes(_ value: JSONValue) -> [UInt8] {
        var w = JSONWriter()
        w.value(value)
        return w.bytes
    }

    func testValidAnswers() throws {
        // Delete, insert, move between sections, update.
        let c = changes(#"""
        {"rows":{"deleted":[{"section":0,"row":1}],"inserted":[{"section":1,"row":0}],
                 "moved":[{"from":{"section":2,"row":0},"to":{"section":0,"row":0},"updated":true}],
                 "updated":[{"section":0,"row":2}]}}
        """#)
        let new: [S] = [S(key: "a", rows: ["5", "1", "3"]), S(key: "b", rows: ["7", "4"]), S(key: "c", rows: ["6"])]
        XCTAssertEqual(try ChangesApplier.apply(old: old, changes: c, new: new), new)
        // Without NEW, inserted rows are unknown (nil).
        XCTAssertEqual(try ChangesApplier.apply(old: old, changes: c).map(\.rows), [["5", "1", "3"], [nil, "4"], ["6"]])

        // Section deleted and inserted: their rows are implied, filled from NEW.
        let s = changes(#"""
        {"sections":{"deleted":[1],"inserted":[0],"moved":[],"updated":[2]},
         "rows":{"moved":[{"from":{"section":0,"row":0},"to":{"section":2,"row":1},"updated":false}]}}
        """#)
        let new2: [S] = [S(key: "z", rows: ["9"]), S(key: "a", rows: ["2", "3"]), S(key: "c", rows: ["5", "1", "6"])]
        XCTAssertEqual(try ChangesApplier.apply(old: old, changes: s, new: new2), new2)

        // Section move: layout puts moves and inserts first, survivors fill the rest in order.
        let m = changes(#"{"sections":{"deleted":[],"inserted":[],"moved":[{"from":2,"to":0}],"updated":[]}}"#)
        XCTAssertEqual(try ChangesApplier.apply(old: old, changes: m).map(\.key), ["c", "a", "b"])

        // Reload needs NEW and returns it.
        let reload = Array(#"{"list":"l","from":1,"to":2,"reload":true}"#.utf8)
        XCTAssertEqual(try ChangesApplier.apply(old: old, changes: reload, new: new), new)
        XCTAssertThrowsError(try ChangesApplier.apply(old: old, changes: reload))
    }

    func testInvalidAnswers() {
        func reason(_ json: String, new: [S]? = nil) -> String {
            do {
                _ = try ChangesApplier.apply(old: old, changes: changes(json), new: new)
                return "valid"
            } catch { return "\(error)" }
        }
        XCTAssertEqual(reason(#"{"rows":{"deleted":[{"section":0,"row":1}],"moved":[{"from":{"section":0,"row":1},"to":{"section":1,"row":0}}]}}"#),
                       "an old index path is deleted or moved twice")
        XCTAssertEqual(reason(#"{"sections":{"deleted":[1],"inserted":[],"moved":[],"updated":[]},"rows":{"deleted":[{"section":1,"row":0}]}}"#),
                       "row (1,0) listed inside deleted section 1")
        XCTAssertEqual(reason(#"{"sections":{"deleted":[],"inserted":[0],"moved":[],"updated":[]},"rows":{"inserted":[{"section":0,"row":0}]}}"#),
                       "row (0,0) listed inside inserted section 0")
        XCTAssertEqual(reason(#"{"sections":{"deleted":[],"inserted":[],"moved":[{"from":1,"to":0}],"updated":[1]}}"#),
                       "a section is updated and also deleted or moved")
        XCTAssertEqual(reason(#"{"sections":{"deleted":[0],"inserted":[],"moved":[{"from":0,"to":1}],"updated":[]}}"#),
                       "a section is both deleted and moved from")
        XCTAssertEqual(reason(#"{"sections":{"deleted":[],"inserted":[1],"moved":[{"from":0,"to":1}],"updated":[]}}"#),
                       "a section is both inserted and moved to")
        XCTAssertEqual(reason(#"{"sections":{"deleted":[3],"inserted":[],"moved":[],"updated":[]}}"#), "old section index 3 out of range")
        XCTAssertEqual(reason(#"{"sections":{"deleted":[],"inserted":[4],"moved":[],"updated":[]}}"#), "new section index 4 out of range")
        XCTAssertEqual(reason(#"{"rows":{"updated":[{"section":1,"row":1}]}}"#), "old index path (1,1) out of range")
        XCTAssertEqual(reason(#"{"rows":{"updated":[{"section":0,"row":0}],"moved":[{"from":{"section":0,"row":0},"to":{"section":0,"row":2}}]}}"#),
                       "an updated row is also deleted or moved")
        XCTAssertEqual(reason(#"{"rows":{"inserted":[{"section":0,"row":0}],"moved":[{"from":{"section":1,"row":0},"to":{"section":0,"row":0}}]}}"#),
                       "new index path (0, 0) filled twice")
        XCTAssertEqual(reason(#"{"rows":{"inserted":[{"section":1,"row":2}]}}"#), "new row index 2 out of range in section 1")
        XCTAssertEqual(reason(#"{"sections":{"deleted":[],"inserted":[],"moved":[{"from":0,"to":2},{"from":1,"to":2}],"updated":[]}}"#),
                       "new section index filled twice (moves to one index)")
        // A structurally valid answer whose result is not NEW.
        XCTAssertTrue(reason(#"{"rows":{"deleted":[{"section":0,"row":0}]}}"#, new: old).hasPrefix("result differs from NEW"))
        XCTAssertEqual(reason(#"{"rows":{"deleted":[{"section":0,"row":0}]}}"#), "valid")
    }

    /// Content mode: an unflagged content change is caught, a flagged one is taken from NEW.
    func testContentMode() throws {
        let o: [S] = [S(key: "a", rows: ["1|x", "2|y"])]
        let n: [S] = [S(key: "a", rows: ["1|x", "2|z"])]
        let none = changes("{}")
        XCTAssertThrowsError(try ChangesApplier.apply(old: o, changes: none, new: n, contentMode: true))
        let upd = changes(#"{"rows":{"updated":[{"section":0,"row":1}]}}"#)
        XCTAssertEqual(try ChangesApplier.apply(old: o, changes: upd, new: n, contentMode: true), n)
        let moved = changes(#"{"rows":{"moved":[{"from":{"section":0,"row":1},"to":{"section":0,"row":0},"updated":true}]}}"#)
        let n2: [S] = [S(key: "a", rows: ["2|z", "1|x"])]
        XCTAssertEqual(try ChangesApplier.apply(old: o, changes: moved, new: n2, contentMode: true), n2)
        let movedStale = changes(#"{"rows":{"moved":[{"from":{"section":0,"row":1},"to":{"section":0,"row":0},"updated":false}]}}"#)
        XCTAssertThrowsError(try ChangesApplier.apply(old: o, changes: movedStale, new: n2, contentMode: true))
    }
}

private extension JSONValue {
    /// Members of `other` replace or extend this object's, one level deep into objects.
    func merging(_ other: JSONValue) -> JSONValue {
        guard case .object(var a) = self, case .object(let b) = other else { return other }
        for m in b.members {
            if let x = a[m.key] { a[m.key] = x.merging(m.value) } else { a[m.key] = m.value }
        }
        return .object(a)
    }
}
