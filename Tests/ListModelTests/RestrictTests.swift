import XCTest
@testable import ListModel
import SectionalService   // the answers' envelopes

/// Seeded random tests: a snapshot restricted to some of its records equals a fresh build over
/// those records, or is refused (nil) when the snapshot drops duplicate rows.
final class RestrictTests: XCTestCase {
    /// A literal section, groups of one collection (whose keys may collide with the literal's),
    /// a keyed section of a second collection (sharing the id space: a duplicate when both
    /// records of an id make a row, none when only one does) and an empty keyed section.
    static let def = definition(#"""
    {"sections":[
      {"key":"lit","type":"L","rows":[{"id":"lit1","title":"L"}]},
      {"source":"a","where":{"on":true},"groupBy":"g","type":"G","title":"{$key}:{$count}","sectionOrder":["m","c"],
       "sortBy":[{"field":"v"}],"row":{"type":"t","title":"{id} {v}","tagLength":2}},
      {"source":"b","key":"bees","type":"B","title":"{$count}","where":{"on":true},"sortBy":[{"field":"v","order":"desc"}],
       "row":{"type":"b","title":"b {id}"}},
      {"key":"empty","type":"E"}
    ]}
    """#)

    func testRestrictedEqualsAFreshBuildOfTheRecordsKept() {
        var refused = 0, compared = 0
        for seed: UInt64 in 1...40 {
            var rng = SplitMix64(seed: seed)
            var store: [String: [String: JSONValue]] = ["a": [:], "b": [:]]
            for _ in 0..<Int.random(in: 0..<60, using: &rng) {
                let collection = Int.random(in: 0..<4, using: &rng) == 0 ? "b" : "a"
                let id = "r\(Int.random(in: 0..<80, using: &rng))"
                var o = JSONObject()
                o["id"] = .string(id)
                // Records of b are rarely "on": most seeds have no duplicates.
                o["on"] = .bool(collection == "a" ? Int.random(in: 0..<5, using: &rng) > 0 : Int.random(in: 0..<12, using: &rng) == 0)
                o["g"] = .string(["c", "m", "x", "lit", "empty"][Int.random(in: 0..<5, using: &rng)])
                o["v"] = .int(Int64.random(in: 0..<6, using: &rng))
                store[collection]![id] = .object(o)
            }
            let full = ListSnapshot.build(definition: Self.def, records: store.mapValues { Array($0.values) })
            for _ in 0..<5 {
                var kept: [String: [String: JSONValue]] = ["a": [:], "b": [:]]
                for (collection, records) in store {
                    for (id, record) in records where Int.random(in: 0..<3, using: &rng) == 0 { kept[collection]![id] = record }
                }
                // An id the snapshot has no record of is ignored.
                let ids = kept.mapValues { Array($0.keys) + ["nobody"] }
                guard let restricted = full.restricted(to: ids) else {
                    XCTAssertGreaterThan(full.duplicateRowCount, 0, "seed \(seed): refused without duplicates")
                    refused += 1
                    continue
                }
                XCTAssertEqual(full.duplicateRowCount, 0, "seed \(seed)")
                let fresh = ListSnapshot.build(definition: Self.def, records: kept.mapValues { Array($0.values) })
                XCTAssertEqual(restricted.fullText(), fresh.fullText(), "seed \(seed)")
                XCTAssertEqual(restricted.index.count, fresh.index.count, "seed \(seed)")
                for (collection, records) in kept {
                    for id in records.keys where fresh.contains(rowID: id) {
                        XCTAssertTrue(restricted.contains(rowID: id), "seed \(seed): \(collection) \(id)")
                    }
                }
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 50, "most seeds have no duplicates")
        XCTAssertGreaterThan(refused, 0, "some seeds have duplicates")
    }

    /// Writes after a restriction move it as they move a fresh build (the result is a snapshot
    /// like any other).
    func testARestrictedSnapshotTakesWrites() throws {
        let records: [JSONValue] = (0..<30).map { n in
            ["id": .string("r\(n)"), "on": true, "g": .string(["c", "m"][n % 2]), "v": .int(Int64(n % 7))]
        }
        let full = ListSnapshot.build(definition: Self.def, records: ["a": records])
        var restricted = try XCTUnwrap(full.restricted(to: ["a": ["r1", "r2", "r3"]]))
        let moved: JSONValue = ["id": "r2", "on": true, "g": "x", "v": 9]
        restricted.apply(.upsert(moved), collection: "a")
        restricted.apply(.delete(id: "r1"), collection: "a")
        let fresh = ListSnapshot.build(definition: Self.def, records: ["a": [records[3], moved]])
        XCTAssertEqual(restricted.fullText(), fresh.fullText())
    }
}
