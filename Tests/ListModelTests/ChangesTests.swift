import TestSupport
import XCTest
@testable import ListModel
import SectionalService   // the answers' envelopes

/// `ListSnapshot.changes(from:changedRowIDs:view:maxChanges:)`, checked against the
/// reference applier (`ChangesApplier` in TestSupport).
final class ChangesTests: XCTestCase {
    let d = definition(#"""
    {"sections":[
      {"key":"lit","type":"L","title":"Settings","rows":[{"id":"x1","title":"literal"}]},
      {"source":"a","groupBy":"g","type":"G","title":"{$key} ({$count})","sortBy":[{"field":"n"}],
       "row":{"title":"{id} {t}","subtitle":"{n}"}},
      {"source":"a","key":"all","title":"All","where":{"dup":true},"row":{"title":"again {id}"}}
    ]}
    """#)

    /// lit(0): x1 · t(1): p1 p2 p3 · u(2): q1 · all(3): —
    func base(_ def: ListDefinition? = nil) -> ListSnapshot {
        ListSnapshot.build(definition: def ?? d, records: ["a": [
            ["id": "p1", "g": "t", "n": 1], ["id": "p2", "g": "t", "n": 2], ["id": "p3", "g": "t", "n": 3],
            ["id": "q1", "g": "u", "n": 1],
        ]])
    }

    /// The update, checked: valid, turns the old outline into the new one (ids and content).
    @discardableResult
    func diff(_ old: ListSnapshot, _ new: ListSnapshot, _ changed: Set<String>, view: ViewState = ViewState(),
              file: StaticString = #filePath, line: UInt = #line) -> BatchUpdate {
        guard let u = new.changes(from: old, changedRowIDs: changed, view: view, maxChanges: 1000) else {
            XCTFail("no update", file: file, line: line)
            return BatchUpdate()
        }
        XCTAssertNoThrow(try ChangesApplier.apply(old: old.changesOutline(view: view), update: u, new: new.changesOutline(view: view)),
                         file: file, line: line)
        XCTAssertNoThrow(try ChangesApplier.apply(old: old.changesOutline(view: view, content: true), update: u,
                                                  new: new.changesOutline(view: view, content: true), contentMode: true),
                         file: file, line: line)
        return u
    }

    func up(_ l: ListSnapshot, _ r: JSONValue) -> ListSnapshot { l.applying(.upsert(r), collection: "a") }
    func p(_ s: Int, _ r: Int) -> ListIndexPath { ListIndexPath(section: s, row: r) }

    func testSingleUpsertInPlaceIsAnUpdate() {
        let old = base()
        let u = diff(old, up(old, ["id": "p2", "g": "t", "n": 2, "t": "new"]), ["p2"])
        XCTAssertEqual(u.rows.updated, [p(1, 1)])
        XCTAssertEqual(u.operationCount, 1)
        // Re-writing the same record changes nothing.
        XCTAssertTrue(diff(old, up(old, ["id": "p2", "g": "t", "n": 2]), ["p2"]).isEmpty)
    }

    func testSortKeyChangeMovesWithinSection() {
        let old = base()
        let u = diff(old, up(old, ["id": "p1", "g": "t", "n": 5]), ["p1"])
        XCTAssertEqual(u.rows.moved, [.init(from: p(1, 0), to: p(1, 2), updated: true)])   // subtitle {n} changed
        XCTAssertEqual(u.operationCount, 1)
        // A sort key change that keeps the position is not a move.
        let u2 = diff(old, up(old, ["id": "p2", "g": "t", "n": 2.5]), ["p2"])
        XCTAssertEqual(u2.rows.updated, [p(1, 1)])
        XCTAssertEqual(u2.operationCount, 1)
    }

    func testGroupChangeMovesBetweenSections() {
        let old = base()
        let u = diff(old, up(old, ["id": "p1", "g": "u", "n": 1]), ["p1"])
        XCTAssertEqual(u.rows.moved, [.init(from: p(1, 0), to: p(2, 0), updated: false)])   // ties break by id: p1 < q1
        XCTAssertEqual(u.sections.updated, [1, 2])   // "t (3)" → "t (2)", "u (1)" → "u (2)"
        XCTAssertEqual(u.operationCount, 3)
    }

    func testNewGroupInsertsSectionWithoutListingItsRows() {
        let old = base()
        let new = up(old, ["id": "p1", "g": "v", "n": 1])
        XCTAssertEqual(new.sectionKeys, ["lit", "t", "u", "v", "all"])
        let u = diff(old, new, ["p1"])
        XCTAssertEqual(u.sections.inserted, [3])
        XCTAssertEqual(u.sections.updated, [1])
        XCTAssertEqual(u.rows.deleted, [p(1, 0)])   // leaves a surviving section for an inserted one
        XCTAssertEqual(u.rows.inserted, [])
        XCTAssertEqual(u.rows.moved, [])
    }

    func testEmptyingGroupDeletesSection() {
        let old = base()
        let moved = up(old, ["id": "q1", "g": "t", "n": 2.5])
        let u = diff(old, moved, ["q1"])
        XCTAssertEqual(u.sections.deleted, [2])
        XCTAssertEqual(u.sections.updated, [1])
        XCTAssertEqual(u.rows.inserted, [p(1, 2)])   // came from a deleted section: an insert, not a move
        XCTAssertEqual(u.rows.moved, [])
        XCTAssertEqual(u.rows.deleted, [])

        let u2 = diff(old, old.applying(.delete(id: "q1"), collection: "a"), ["q1"])
        XCTAssertEqual(u2, BatchUpdate(sections: { var s = BatchUpdate.Sections(); s.deleted = [2]; return s }()))
    }

    func testCountInTitleUpdatesSectionOnlyWhenTheHeaderChanges() {
        let old = base()
        let u = diff(old, up(old, ["id": "p4", "g": "t", "n": 0]), ["p4"])
        XCTAssertEqual(u.rows.inserted, [p(1, 0)])
        XCTAssertEqual(u.sections.updated, [1])
        XCTAssertEqual(u.operationCount, 2)
        // "All" has no {$count}: a new row there changes no header.
        let u2 = diff(old, up(old, ["id": "q1", "g": "u", "n": 1, "dup": true]), ["q1"])
        XCTAssertTrue(u2.isEmpty, "q1 stays owned by the grouped spec; the duplicate is dropped: \(u2)")
        // A record without the group field lands in the new group "": the section is inserted, its row implied.
        let u3 = diff(old, up(old, ["id": "z", "dup": true]), ["z"])
        XCTAssertEqual(u3.sections.inserted, [1])
        XCTAssertEqual(u3.rows, BatchUpdate.Rows())

        let d3 = definition(#"""
        {"sections":[{"source":"a","key":"all","title":"All","where":{"dup":true},"row":{}},
                     {"source":"a","key":"n","title":"N {$count}","footer":{"title":"{$count|default:none}"},"where":{"dup":false},"row":{}}]}
        """#)
        let l0 = ListSnapshot.build(definition: d3, records: ["a": [["id": "a", "dup": true], ["id": "b", "dup": false]]])
        let u4 = diff(l0, l0.applying(.upsert(["id": "z", "dup": true]), collection: "a"), ["z"])
        XCTAssertEqual(u4.rows.inserted, [p(0, 1)])
        XCTAssertEqual(u4.sections.updated, [])
        let u5 = diff(l0, l0.applying(.upsert(["id": "a", "dup": false]), collection: "a"), ["a"])
        XCTAssertEqual(u5.rows.moved, [.init(from: p(0, 0), to: p(1, 0), updated: false)])
        XCTAssertEqual(u5.sections.updated, [1])
    }

    func testHiddenSectionRowsAreNotListed() {
        let old = base()
        let view = ViewState(hidden: ["t"])
        XCTAssertTrue(diff(old, up(old, ["id": "p2", "g": "t", "n": 2, "t": "x"]), ["p2"], view: view).isEmpty)
        XCTAssertTrue(diff(old, up(old, ["id": "p1", "g": "t", "n": 9]), ["p1"], view: view).isEmpty)
        let u = diff(old, up(old, ["id": "p4", "g": "t", "n": 0]), ["p4"], view: view)
        XCTAssertEqual(u.sections.updated, [1])   // the header still counts hidden rows
        XCTAssertEqual(u.rows, BatchUpdate.Rows())
        let out = diff(old, up(old, ["id": "p1", "g": "u", "n": 9]), ["p1"], view: view)
        XCTAssertEqual(out.rows.inserted, [p(2, 1)])   // from a hidden section: an insert
        let back = diff(old, up(old, ["id": "q1", "g": "t", "n": 9]), ["q1"], view: ViewState(hidden: ["t"]))
        XCTAssertEqual(back.sections.deleted, [2])
        XCTAssertEqual(back.rows, BatchUpdate.Rows())
        let into = diff(up(old, ["id": "q2", "g": "u", "n": 5]), up(up(old, ["id": "q2", "g": "u", "n": 5]), ["id": "q2", "g": "t", "n": 5]),
                        ["q2"], view: view)
        XCTAssertEqual(into.rows.deleted, [p(2, 1)])   // into a hidden section: a delete
    }

    func testLiteralAndDataSections() {
        let old = base()
        // A record with a literal row's id: the literal spec comes first and keeps it.
        XCTAssertTrue(diff(old, up(old, ["id": "x1", "g": "t", "n": 0]), ["x1"]).isEmpty)

        // Data spec before the literal: the record takes the id over (a move between sections).
        let d2 = definition(#"""
        {"sections":[{"source":"a","key":"data","row":{"title":"data"}},{"key":"lit","rows":[{"id":"x","title":"literal"}]}]}
        """#)
        let l0 = ListSnapshot.build(definition: d2, records: [:])
        let l1 = l0.applying(.upsert(["id": "x"]), collection: "a")
        XCTAssertEqual(diff(l0, l1, ["x"]).rows.moved, [.init(from: p(1, 0), to: p(0, 0), updated: true)])
        XCTAssertEqual(diff(l1, l0, ["x"]).rows.moved, [.init(from: p(0, 0), to: p(1, 0), updated: true)])
    }

    func testOneChangedRecordGivesAtMostOneRowOperation() {
        var rng = SplitMix64(seed: 11)
        func rec(_ id: String) -> JSONValue {
            ["id": .string(id), "g": .string(["a", "b", "c", "d", "e"][Int.random(in: 0..<5, using: &rng)]),
             "n": .int(Int64.random(in: 0..<20, using: &rng)), "t": .string(["x", "y"][Int.random(in: 0..<2, using: &rng)])]
        }
        var list = ListSnapshot.build(definition: d, records: ["a": (0..<300).map { rec("r\($0)") }])
        var counts: [Int] = [0, 0]
        for _ in 0..<300 {
            let id = "r\(Int.random(in: 0..<320, using: &rng))"
            let next = Int.random(in: 0..<5, using: &rng) == 0 ? list.applying(.delete(id: id), collection: "a") : up(list, rec(id))
            let u = diff(list, next, [id])
            let rowOps = u.rows.deleted.count + u.rows.inserted.count + u.rows.moved.count + u.rows.updated.count
            XCTAssertLessThanOrEqual(rowOps, 1)
            counts[rowOps] += 1
            if list.sectionKeys == next.sectionKeys { XCTAssertLessThanOrEqual(u.sections.updated.count, 2) }
            XCTAssertEqual(u.sections.moved, [])
            list = next
        }
        XCTAssertGreaterThan(counts[1], 200)
    }

    func testEmptyReloadAndExtraIDs() {
        let old = base()
        XCTAssertTrue(diff(old, old, []).isEmpty)
        XCTAssertTrue(diff(old, old, ["p1", "nope", "x1"]).isEmpty)
        let new = up(up(old, ["id": "p4", "g": "t", "n": 0]), ["id": "p5", "g": "w"])
        // p4 inserted into t, t's title, section "w" inserted (p5 implied); extra ids are harmless.
        XCTAssertEqual(diff(old, new, ["p4", "p5", "p1", "q1", "zzz"]).operationCount, 3)
        XCTAssertNil(new.changes(from: old, changedRowIDs: ["p4", "p5"], view: ViewState(), maxChanges: 2))
        XCTAssertNotNil(new.changes(from: old, changedRowIDs: ["p4", "p5"], view: ViewState(), maxChanges: 3))
        // Another definition: reload.
        let other = base(definition(#"{"sections":[{"source":"a","groupBy":"g","row":{}}]}"#))
        XCTAssertNil(other.changes(from: old, changedRowIDs: [], view: ViewState(), maxChanges: 1000))
    }

    func testRenamedSectionKeyIsDeletedAndInserted() {
        // Two grouped specs produce group "k": the second is served as "k#1" until the first goes.
        let d = definition(#"{"sections":[{"source":"a","groupBy":"g","row":{}},{"source":"b","groupBy":"g","row":{}}]}"#)
        let l0 = ListSnapshot.build(definition: d, records: ["a": [["id": "1", "g": "k"]], "b": [["id": "2", "g": "k"], ["id": "3", "g": "k"]]])
        XCTAssertEqual(l0.sectionKeys, ["k", "k#1"])
        let l1 = l0.applying(.delete(id: "1"), collection: "a")
        XCTAssertEqual(l1.sectionKeys, ["k"])
        let u = diff(l0, l1, ["1"])
        XCTAssertEqual(u.sections.deleted, [0, 1])
        XCTAssertEqual(u.sections.inserted, [0])
        XCTAssertEqual(u.rows, BatchUpdate.Rows())
    }

    func testSectionPlanMovesOutsideLongestRun() {
        func n(_ k: String) -> SectionNode { SectionNode(spec: 0, rawKey: k, key: k, rows: RowSequence()) }
        let plan = SectionPlan(old: ["a", "b", "c", "d"].map(n), new: ["d", "a", "x", "b", "c"].map(n))
        XCTAssertEqual(plan.moved, [.init(from: 3, to: 0)])
        XCTAssertEqual(plan.newOfOld, [1, 3, 4, 0])
        XCTAssertEqual(plan.oldOfNew, [3, 0, -1, 1, 2])
        XCTAssertEqual(longestIncreasingRun([3, 1, 2, 0, 5, 4, 6]), [1, 2, 5, 6])   // values 1 2 4 6
        XCTAssertEqual(longestIncreasingRun([]), [])
        XCTAssertEqual(longestIncreasingRun([2, 2, 2]).count, 1)
    }

    func testAnswerJSONShape() {
        var u = BatchUpdate()
        u.sections.deleted = [2]; u.sections.inserted = [0]; u.sections.moved = [.init(from: 3, to: 1)]; u.sections.updated = [4]
        u.rows.deleted = [p(0, 3)]; u.rows.inserted = [p(1, 0)]
        u.rows.moved = [.init(from: p(0, 5), to: p(2, 1), updated: true)]; u.rows.updated = [p(4, 2)]
        var w = JSONWriter()
        ListSnapshot.writeChangesAnswer(u, list: "contacts", from: 16, to: 18, into: &w)
        XCTAssertEqual(text(w), #"{"list":"contacts","from":16,"to":18,"reload":false,"#
                       + #""sections":{"deleted":[2],"inserted":[0],"moved":[{"from":3,"to":1}],"updated":[4]},"#
                       + #""rows":{"deleted":[{"section":0,"row":3}],"inserted":[{"section":1,"row":0}],"#
                       + #""moved":[{"from":{"section":0,"row":5},"to":{"section":2,"row":1},"updated":true}],"#
                       + #""updated":[{"section":4,"row":2}]}}"#)
        var r = JSONWriter()
        ListSnapshot.writeChangesAnswer(nil, list: "contacts", from: 3, to: 9, into: &r)
        XCTAssertEqual(text(r), #"{"list":"contacts","from":3,"to":9,"reload":true}"#)
        var e = JSONWriter()
        ListSnapshot.writeChangesAnswer(BatchUpdate(), list: "c", from: 5, to: 5, into: &e)
        XCTAssertEqual(text(e), #"{"list":"c","from":5,"to":5,"reload":false,"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[]},"#
                       + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]}}"#)
    }
}
