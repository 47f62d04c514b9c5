import TestSupport
import XCTest
@testable import ListModel

/// Seeded random histories of a search result: kept up to date write by write (and batch by
/// batch) as the service keeps one, it equals a fresh build over the matching records at every
/// step, data-bound sections without rows gone (groups and keyed sections alike, literal ones
/// kept); and `changes` between any two of its versions turns one outline into the other.
final class SearchResultTests: XCTestCase {
    /// The query: records whose `v` is not 0 (so a write moves a record in and out).
    static func matches(_ record: JSONObject) -> Bool { record["v"] != .int(0) }

    /// Applies `writes` of collection `c` to `result` as the service does: a matching record is
    /// upserted, one that no longer matches leaves, one that never entered is skipped.
    static func apply(_ writes: [(id: String, record: JSONObject?)], collection c: String, to result: inout ListSnapshot) {
        var changes: [RecordChange] = []
        var entered: [String: Bool] = [:]
        for (id, record) in writes {
            if let record, matches(record) {
                entered[id] = true
                changes.append(.upsert(.object(record)))
            } else if entered[id] ?? result.contains(rowID: id) {
                entered[id] = false
                changes.append(.delete(id: id))
            }
        }
        result.apply(changes, collection: c)
    }

    static func fresh(_ store: [String: [String: JSONObject]]) -> ListSnapshot {
        ListSnapshot.build(definition: ChangesPropertyTests.def,
                           records: store.mapValues { $0.valuesByKey.filter(matches).map { JSONValue.object($0) } }).asSearchResult()
    }

    func testAResultKeptUpToDateEqualsAFreshResultAndItsChangesApply() throws {
        var emptiedKeyed = 0
        for seed: UInt64 in 1...16 {
            var rng = SplitMix64(seed: seed)
            var store: [String: [String: JSONObject]] = ["a": [:], "b": [:]]
            for _ in 0..<20 {
                let c = Int.random(in: 0..<4, using: &rng) == 0 ? "b" : "a"
                let id = "r\(Int.random(in: 0..<24, using: &rng))"
                store[c]![id] = ChangesPropertyTests.record(id, &rng)
            }
            var result = Self.fresh(store)
            XCTAssertTrue(result.isSearchResult)
            var snaps = [result]
            var written: [Set<String>] = [[]]
            for step in 0..<24 {
                // A batch of one collection: one write, a few, or enough for the bulk path.
                let c = Int.random(in: 0..<4, using: &rng) == 0 ? "b" : "a"
                let n = step % 6 == 5 ? ListSnapshot.bulkThreshold + 8 : Int.random(in: 1...3, using: &rng)
                var writes: [(id: String, record: JSONObject?)] = []
                for _ in 0..<n {
                    let id = "r\(Int.random(in: 0..<24, using: &rng))"
                    var r = store[c]![id] ?? ChangesPropertyTests.record(id, &rng)
                    switch Int.random(in: 0..<5, using: &rng) {
                    case 0: r["v"] = .int(0)   // leaves the result
                    case 1: r["v"] = ChangesPropertyTests.value(&rng)
                    case 2: r["g"] = ChangesPropertyTests.group(&rng)
                    case 3: r["even"] = .bool(Bool.random(using: &rng))
                    default:
                        store[c]![id] = nil
                        writes.append((id, nil))
                        continue
                    }
                    store[c]![id] = r
                    writes.append((id, r))
                }
                Self.apply(writes, collection: c, to: &result)
                let expected = Self.fresh(store)
                let at = "seed \(seed) step \(step)"
                XCTAssertEqual(result.fullText(), expected.fullText(), at)
                XCTAssertEqual(result.sectionKeys, expected.sectionKeys, at)
                XCTAssertEqual(result.tagCount, expected.tagCount, at)
                if !result.sectionKeys.contains("evens") { emptiedKeyed += 1 }
                snaps.append(result)
                written.append(Set(writes.map(\.id)))
            }
            for i in snaps.indices {
                var changed: Set<String> = []
                for j in i..<snaps.count {
                    if j > i { changed.formUnion(written[j]) }
                    let at = "seed \(seed) pair \(i)→\(j)"
                    guard let u = snaps[j].changes(from: snaps[i], changedRowIDs: changed, view: ViewState(), maxChanges: .max) else {
                        XCTFail("nil update \(at)"); continue
                    }
                    XCTAssertNoThrow(try ChangesApplier.apply(old: snaps[i].changesOutline(view: ViewState()), update: u,
                                                              new: snaps[j].changesOutline(view: ViewState())), at)
                }
            }
        }
        XCTAssertGreaterThan(emptiedKeyed, 0, "the keyed section was gone at some steps")
    }

    func testAKeyedSectionWithoutMatchesIsGoneAndALiteralOneStays() {
        let list = ListSnapshot.build(definition: ChangesPropertyTests.def, records: [:])
        XCTAssertEqual(list.sectionKeys, ["lit", "evens", "empty"], "in the list a keyed section is there without rows")
        let result = list.asSearchResult()
        XCTAssertEqual(result.sectionKeys, ["lit", "empty"], "in a result it is not; literal sections stay")
        var record = JSONObject()
        record["id"] = "r1"; record["even"] = true; record["v"] = 1
        XCTAssertEqual(result.applying(.upsert(.object(record)), collection: "a").sectionKeys.contains("evens"), true,
                       "a matching row brings it back")
    }

    /// A group whose value is a configured key is served as `key#<spec index>` in the whole list;
    /// a result without the configured section keeps that key (views name sections by key), and
    /// a write bringing the configured section in or out renames nothing.
    func testAGroupKeepsTheWholeListsKeyWhenTheConfiguredSectionIsNotInTheResult() throws {
        var group = JSONObject()   // spec 1 groups it under "evens", the key of spec 2
        group["id"] = "r1"; group["on"] = true; group["g"] = "evens"; group["v"] = 1
        var even = JSONObject()    // spec 2's only row, not in the result (v = 0)
        even["id"] = "r2"; even["even"] = true; even["v"] = 0
        let list = ListSnapshot.build(definition: ChangesPropertyTests.def, records: ["a": [.object(group), .object(even)]])
        XCTAssertEqual(list.sectionKeys, ["lit", "evens#1", "evens", "empty"])

        let result = Self.fresh(["a": ["r1": group, "r2": even], "b": [:]])
        XCTAssertEqual(result.sectionKeys, ["lit", "evens#1", "empty"], "the group keeps its key; evens is not taken")
        let restricted = try XCTUnwrap(list.restricted(to: ["a": ["r1"]])).asSearchResult()
        XCTAssertEqual(restricted.sectionKeys, ["lit", "evens#1", "empty"], "a result restricted from the list too")

        even["v"] = 1
        var shown = result
        Self.apply([("r2", even)], collection: "a", to: &shown)
        XCTAssertEqual(shown.sectionKeys, ["lit", "evens#1", "evens", "empty"])
        var gone = shown
        Self.apply([("r2", nil)], collection: "a", to: &gone)
        XCTAssertEqual(gone.sectionKeys, ["lit", "evens#1", "empty"])
        let update = try XCTUnwrap(gone.changes(from: shown, changedRowIDs: ["r2"], view: ViewState(), maxChanges: .max))
        XCTAssertEqual(update.sections.deleted, [2], "only the configured section goes")
        XCTAssertEqual(update.sections.inserted, [], "the group is not deleted and inserted again")
    }
}
