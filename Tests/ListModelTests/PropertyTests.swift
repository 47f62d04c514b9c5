import XCTest
@testable import ListModel
import SectionalService   // the answers' envelopes

/// Seeded random tests: incremental = fresh build; page walks are complete and stable.
final class PropertyTests: XCTestCase {
    static let def = definition(#"""
    {"title":"P","sections":[
      {"key":"lit","type":"L","rows":[{"id":"r3","title":"lit r3"},{"id":"q","tagLength":0}]},
      {"source":"a","where":{"on":true},"groupBy":"g","type":"G","title":"{$key}:{$count}","sectionOrder":["m","c"],
       "sortBy":[{"field":"v"},{"field":"w","order":"desc"}],"typeField":"kind",
       "row":{"type":"t","title":"{id} {v}","subtitle":"{w|number:1}","tagLength":2},
       "rowTypes":{"k1":{"tagLength":0,"title":"zero {id}"},"k2":{"tagLength":3}},
       "accessibility":{"identifier":"c","options":["section","row"]}},
      {"source":"a","key":"evens","where":{"even":true},"sortBy":[{"field":"w","order":"desc"}],"row":{"title":"even {id}"}},
      {"key":"empty","type":"E"},
      {"source":"b","groupBy":"g","sectionOrder":"desc","row":{"title":"b {id}","tagLength":1}}
    ]}
    """#)

    static func randomValue(_ rng: inout SplitMix64) -> JSONValue {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2, 3: return .int(Int64.random(in: -3...3, using: &rng))
        case 4: return .double(Double(Int.random(in: -6...6, using: &rng)) / 2)
        case 5, 6: return .string(["a", "b", "B", "é", "ab", ""][Int.random(in: 0..<6, using: &rng)])
        default: return .array([])
        }
    }

    static func randomRecord(_ id: String, _ rng: inout SplitMix64) -> JSONValue {
        var o = JSONObject()
        o["id"] = .string(id)
        if Int.random(in: 0..<10, using: &rng) > 0 { o["on"] = .bool(Int.random(in: 0..<5, using: &rng) > 0) }
        if Int.random(in: 0..<8, using: &rng) > 0 { o["g"] = .string(["c", "m", "x", "y", "z", "lit"][Int.random(in: 0..<6, using: &rng)]) }
        if Int.random(in: 0..<6, using: &rng) > 0 { o["v"] = randomValue(&rng) }
        o["w"] = randomValue(&rng)
        if Bool.random(using: &rng) { o["kind"] = .string(["k1", "k2", "other"][Int.random(in: 0..<3, using: &rng)]) }
        if Int.random(in: 0..<4, using: &rng) == 0 { o["even"] = true }
        return .object(o)
    }

    /// (1) random upserts/deletes applied incrementally give exactly a fresh build.
    func testIncrementalEqualsFreshBuild() {
        for seed: UInt64 in [1, 2, 3, 4, 5, 6] {
            var rng = SplitMix64(seed: seed)
            var store: [String: [String: JSONValue]] = ["a": [:], "b": [:]]
            for i in 0..<Int.random(in: 0..<40, using: &rng) {
                let c = i % 3 == 0 ? "b" : "a"
                store[c]!["r\(Int.random(in: 0..<50, using: &rng))"] = PropertyTests.randomRecord("", &rng)
            }
            for (c, recs) in store { for (id, _) in recs { var o = recs[id]!.objectValue!; o["id"] = .string(id); store[c]![id] = .object(o) } }
            func fresh() -> ListSnapshot {
                ListSnapshot.build(definition: PropertyTests.def, records: store.mapValues { $0.valuesByKey })
            }
            var list = fresh()
            for step in 0..<300 {
                let c = Int.random(in: 0..<4, using: &rng) == 0 ? "b" : "a"
                let id = "r\(Int.random(in: 0..<50, using: &rng))"
                let previous = list
                let previousText = step % 25 == 0 ? previous.fullText() : ""
                if Int.random(in: 0..<3, using: &rng) == 0 {
                    store[c]![id] = nil
                    list = list.applying(.delete(id: id), collection: c)
                } else {
                    let r = PropertyTests.randomRecord(id, &rng)
                    store[c]![id] = r
                    list = list.applying(.upsert(r), collection: c)
                }
                XCTAssertEqual(list.fullText(), fresh().fullText(), "seed \(seed) step \(step)")
                if step % 25 == 0 { XCTAssertEqual(previous.fullText(), previousText, "seed \(seed) step \(step): old snapshot changed") }
            }
        }
    }

    /// Same on a big list so chunks split, merge and disappear.
    func testIncrementalEqualsFreshBuildOnLargeSections() {
        let d = definition(#"""
        {"sections":[{"source":"a","groupBy":"g","sortBy":[{"field":"v"}],"row":{"title":"{v}","tagLength":1}},
                     {"source":"a","key":"k","where":{"g":"a"},"row":{}}]}
        """#)
        var rng = SplitMix64(seed: 42)
        var store: [String: JSONValue] = [:]
        func rec(_ id: String) -> JSONValue {
            ["id": .string(id), "g": .string(["a", "b"][Int.random(in: 0..<2, using: &rng)]), "v": .int(Int64.random(in: 0..<100, using: &rng))]
        }
        for i in 0..<2500 { store["r\(i)"] = rec("r\(i)") }
        var list = ListSnapshot.build(definition: d, records: ["a": store.valuesByKey])
        for step in 0..<3000 {
            let id = "r\(Int.random(in: 0..<3000, using: &rng))"
            if step > 1500 && Int.random(in: 0..<3, using: &rng) > 0 {
                store[id] = nil
                list.apply(.delete(id: id), collection: "a")
            } else {
                let r = rec(id)
                store[id] = r
                list.apply(.upsert(r), collection: "a")
            }
            if step % 500 == 499 {
                XCTAssertEqual(list.fullText(), ListSnapshot.build(definition: d, records: ["a": store.valuesByKey]).fullText(), "seed 42 step \(step)")
            }
        }
    }

    static func randomList(_ rng: inout SplitMix64) -> ListSnapshot {
        var store: [String: [JSONValue]] = ["a": [], "b": []]
        for i in 0..<Int.random(in: 0..<60, using: &rng) {
            store[i % 4 == 0 ? "b" : "a"]!.append(randomRecord("r\(i)", &rng))
        }
        return ListSnapshot.build(definition: def, records: store)
    }

    struct Walked {
        var rows: [String] = []
        var newSections: [Int] = []
        var pages = 0
    }

    func walk(_ list: ListSnapshot, view: ViewState, label: String, sizes: () -> Int, between: (inout ListSnapshot) -> Void = { _ in }) throws -> Walked {
        var list = list
        var out = Walked()
        var token: String? = nil
        var previousPageSections: Set<Int> = []
        repeat {
            let page = try list.page(size: sizes(), token: token, view: view, binding: PageBinding(list: "l", view: "v"))
            var w = JSONWriter()
            list.writePageAnswer(page, list: "l", version: 1, into: &w)
            // The room a page answer's writer is given holds it (else it grows and copies).
            XCTAssertLessThanOrEqual(w.bytes.count, list.pageAnswerBytesBound(page, list: "l"), label)
            let json = try JSONParser.parse(w.bytes)
            var here: Set<Int> = []
            var rowsOnPage = 0
            for s in json["sections"]!.arrayValue! {
                let index = Int(s["index"]!.intValue!)
                here.insert(index)
                if !previousPageSections.contains(index) { out.newSections.append(index) }
                let rows = s["rows"]!.arrayValue!
                XCTAssertEqual(rows.first?["indexPath"]?["row"]?.intValue.map(Int.init) ?? Int(s["rowOffset"]!.intValue!), Int(s["rowOffset"]!.intValue!), label)
                for r in rows { out.rows.append(r["id"]!.stringValue!) }
                rowsOnPage += rows.count
            }
            XCTAssertEqual(Int(json["itemsAfter"]!.intValue!) == 0, json["nextPageToken"] == nil, label)
            previousPageSections = here
            token = json["nextPageToken"]?.stringValue
            out.pages += 1
            if out.pages > 10_000 { XCTFail("\(label): page walk does not end"); break }
            if token != nil { between(&list) }
        } while token != nil
        return out
    }

    /// (2) walking all pages yields every visible row once, in order, and every section once as new.
    func testPageWalkIsComplete() throws {
        for seed: UInt64 in 1...40 {
            var rng = SplitMix64(seed: seed)
            let list = PropertyTests.randomList(&rng)
            var hidden: Set<String> = []
            for s in 0..<list.sectionCount where Int.random(in: 0..<3, using: &rng) == 0 { hidden.insert(list.section(at: s)!.key) }
            let view = ViewState(hidden: hidden)
            let size = Int.random(in: 1...8, using: &rng)
            let walked = try walk(list, view: view, label: "seed \(seed)", sizes: { size })
            var expected: [String] = []
            for s in 0..<list.sectionCount where !hidden.contains(list.section(at: s)!.key) {
                for r in 0..<list.section(at: s)!.totalRowCount { expected.append(list.location(section: s, row: r, view: view)!.rowID) }
            }
            XCTAssertEqual(walked.rows, expected, "seed \(seed)")
            XCTAssertEqual(walked.newSections, Array(0..<list.sectionCount), "seed \(seed)")
            XCTAssertEqual(walked.pages, max(1, (expected.count + size - 1) / size), "seed \(seed)")
        }
    }

    /// (3) a walk interleaved with inserts/deletes never skips or repeats a row that existed
    /// throughout and kept its sort key.
    func testPageWalkWithConcurrentChangesKeepsStableRows() throws {
        for seed: UInt64 in 100...130 {
            var rng = SplitMix64(seed: seed)
            var store: [String: JSONValue] = [:]
            for i in 0..<80 { store["s\(i)"] = PropertyTests.randomRecord("s\(i)", &rng) }
            let list = ListSnapshot.build(definition: PropertyTests.def, records: ["a": store.valuesByKey])
            var touched: Set<String> = []
            var counter = 0
            let view = ViewState(hidden: Int.random(in: 0..<2, using: &rng) == 0 ? ["x"] : [])
            let initialVisible = Set((0..<list.sectionCount).filter { !view.isHidden(list.section(at: $0)!.key) }.flatMap { s in
                (0..<list.section(at: s)!.totalRowCount).map { list.location(section: s, row: $0, view: view)!.rowID }
            })
            var rng2 = SplitMix64(seed: seed &* 31)
            let walked = try walk(list, view: view, label: "seed \(seed)", sizes: { Int.random(in: 1...6, using: &rng2) }) { l in
                for _ in 0..<Int.random(in: 0..<4, using: &rng) {
                    if Bool.random(using: &rng) {
                        counter += 1
                        let id = "n\(counter)"
                        touched.insert(id)
                        l.apply(.upsert(PropertyTests.randomRecord(id, &rng)), collection: "a")
                    } else {
                        let id = "s\(Int.random(in: 0..<80, using: &rng))"
                        touched.insert(id)
                        if Bool.random(using: &rng) { l.apply(.delete(id: id), collection: "a") }
                        else { l.apply(.upsert(PropertyTests.randomRecord(id, &rng)), collection: "a") }
                    }
                }
            }
            let stable = initialVisible.subtracting(touched)
            let delivered = walked.rows.filter { stable.contains($0) }
            XCTAssertEqual(delivered.count, Set(delivered).count, "seed \(seed): repeated")
            XCTAssertEqual(Set(delivered), stable, "seed \(seed): skipped \(stable.subtracting(delivered))")
            // Stable rows keep their relative order.
            let order = (0..<list.sectionCount).flatMap { s in (0..<list.section(at: s)!.totalRowCount).map { list.location(section: s, row: $0, view: view)!.rowID } }
            XCTAssertEqual(delivered, order.filter { stable.contains($0) }, "seed \(seed)")
        }
    }
}
