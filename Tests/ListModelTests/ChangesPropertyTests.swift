import TestSupport
import XCTest
@testable import ListModel

/// Seeded random histories: for every pair of snapshots (old, current), `changes` is a valid
/// answer that turns the old outline into the current one, with exact `updated` flags, and is
/// small.
final class ChangesPropertyTests: XCTestCase {
    /// Literal section (whose ids records also use), grouped spec with `{$count}` in title and
    /// header, sort with ties, typeField/rowTypes, a keyed spec that duplicates ids of the grouped
    /// one, a second collection grouped in descending order (its group "lit" collides with the
    /// literal key and is served as "lit#4").
    static let def = definition(#"""
    {"title":"P","sections":[
      {"key":"lit","type":"L","title":"Lit","rows":[{"id":"r3","title":"lit r3"},{"id":"q","tagLength":0}]},
      {"source":"a","where":{"on":true},"groupBy":"g","type":"G","title":"{$key}:{$count}","sectionOrder":["m","c"],
       "header":{"title":"{$count} rows"},"footer":{"title":"{$key}"},
       "sortBy":[{"field":"v"},{"field":"w","order":"desc"}],"typeField":"kind",
       "row":{"type":"t","title":"{id} {v}","subtitle":"{w|number:1}","tagLength":2},
       "rowTypes":{"k1":{"tagLength":0,"title":"zero {id}"},"k2":{"tagLength":3}},
       "accessibility":{"identifier":"c","options":["section","row"]}},
      {"source":"a","key":"evens","title":"E{$count}","where":{"even":true},"sortBy":[{"field":"w","order":"desc"}],"row":{"title":"even {id}"}},
      {"key":"empty","type":"E"},
      {"source":"b","groupBy":"g","sectionOrder":"desc","icon":"{$count|default:x}","row":{"title":"b {id} {w}","tagLength":1}}
    ]}
    """#)

    static func value(_ rng: inout SplitMix64) -> JSONValue {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return .null
        case 1, 2: return .int(Int64.random(in: 0...3, using: &rng))
        case 3: return .double(Double(Int.random(in: 0...6, using: &rng)) / 2)
        default: return .string(["a", "b", "é"][Int.random(in: 0..<3, using: &rng)])
        }
    }

    static func group(_ rng: inout SplitMix64) -> JSONValue {
        Int.random(in: 0..<10, using: &rng) == 0 ? .null : .string(["c", "m", "x", "y", "lit"][Int.random(in: 0..<5, using: &rng)])
    }

    static func record(_ id: String, _ rng: inout SplitMix64) -> JSONObject {
        var o = JSONObject()
        o["id"] = .string(id)
        o["on"] = .bool(Int.random(in: 0..<6, using: &rng) > 0)
        o["g"] = group(&rng)
        o["v"] = value(&rng)
        o["w"] = value(&rng)
        if Bool.random(using: &rng) { o["kind"] = .string(["k1", "k2", "other"][Int.random(in: 0..<3, using: &rng)]) }
        if Int.random(in: 0..<4, using: &rng) == 0 { o["even"] = true }
        return o
    }

    /// One write: a fresh record, a one-field change (group, sort key, content, type, filter),
    /// an identical re-write, or a delete.
    static func write(_ store: inout [String: [String: JSONObject]], _ list: inout ListSnapshot, _ rng: inout SplitMix64) -> String {
        let c = Int.random(in: 0..<4, using: &rng) == 0 ? "b" : "a"
        let id = "r\(Int.random(in: 0..<24, using: &rng))"
        let existing = store[c]![id]
        var r = existing ?? record(id, &rng)
        switch Int.random(in: 0..<9, using: &rng) {
        case 0: r = record(id, &rng)
        case 1: r["g"] = group(&rng)
        case 2: r["v"] = value(&rng)
        case 3: r["w"] = value(&rng)
        case 4: r["kind"] = .string(["k1", "k2", "other"][Int.random(in: 0..<3, using: &rng)])
        case 5: r["on"] = .bool(Bool.random(using: &rng)); r["even"] = .bool(Bool.random(using: &rng))
        case 6: break
        default:
            store[c]![id] = nil
            list.apply(.delete(id: id), collection: c)
            return id
        }
        store[c]![id] = r
        list.apply(.upsert(.object(r)), collection: c)
        return id
    }

    /// Header fields as served, without what the diff ignores (index, hidden, counts, first tag,
    /// accessibility section suffix).
    static func header(_ l: ListSnapshot, _ i: Int) -> String {
        var w = JSONWriter()
        l.writeSection(i, view: ViewState(), into: &w)
        guard case .object(var o)? = try? JSONParser.parse(w.bytes) else { return "<not an object: \(text(w))>" }
        for k in ["index", "hidden", "rowCount", "totalRowCount", "firstTag"] { o[k] = nil }
        for k in ["header", "footer"] {
            if case .object(var h)? = o[k] { h["accessibilityIdentifier"] = nil; o[k] = .object(h) }
        }
        var out = JSONWriter()
        out.value(.object(o))
        return String(decoding: out.bytes, as: UTF8.self)
    }

    func testEveryPairOfSnapshots() throws {
        var stats = (pairs: 0, rowOps: 0, sectionOps: 0, moves: 0, updated: 0, movedUpdated: 0)
        for seed: UInt64 in 1...12 {
            var rng = SplitMix64(seed: seed)
            var store: [String: [String: JSONObject]] = ["a": [:], "b": [:]]
            for _ in 0..<30 {
                let c = Int.random(in: 0..<4, using: &rng) == 0 ? "b" : "a"
                let id = "r\(Int.random(in: 0..<24, using: &rng))"
                store[c]![id] = ChangesPropertyTests.record(id, &rng)
            }
            var list = ListSnapshot.build(definition: ChangesPropertyTests.def,
                                          records: store.mapValues { $0.valuesByKey.map { JSONValue.object($0) } })
            var snaps = [list]
            var written: [Set<String>] = [[]]
            for _ in 0..<28 {
                var ids: Set<String> = []
                let n = Int.random(in: 0..<4, using: &rng) == 0 ? Int.random(in: 2...5, using: &rng) : 1
                for _ in 0..<n { ids.insert(ChangesPropertyTests.write(&store, &list, &rng)) }
                snaps.append(list)
                written.append(ids)
            }
            let keys = Set(snaps.flatMap(\.sectionKeys))
            let views = [ViewState(), ViewState(hidden: keys.filter { _ in Int.random(in: 0..<3, using: &rng) == 0 })]
            for view in views {
                let outlines = snaps.map { $0.changesOutline(view: view) }
                let contents = snaps.map { $0.changesOutline(view: view, content: true) }
                let headers = snaps.map { s in (0..<s.sectionCount).map { ChangesPropertyTests.header(s, $0) } }
                for i in snaps.indices {
                    var changed: Set<String> = []
                    for j in i..<snaps.count {
                        if j > i { changed.formUnion(written[j]) }
                        let at = "seed \(seed) view \(view.hidden.map(\.string).sorted()) pair \(i)→\(j)"
                        guard let u = snaps[j].changes(from: snaps[i], changedRowIDs: changed, view: view, maxChanges: .max) else {
                            XCTFail("nil update \(at)"); continue
                        }
                        stats.pairs += 1
                        if (i + j) % 4 == 0 {   // maxChanges is exact
                            XCTAssertEqual(snaps[j].changes(from: snaps[i], changedRowIDs: changed, view: view, maxChanges: u.operationCount), u, at)
                            if u.operationCount > 0 {
                                XCTAssertNil(snaps[j].changes(from: snaps[i], changedRowIDs: changed, view: view, maxChanges: u.operationCount - 1), at)
                            }
                        }
                        do {
                            _ = try ChangesApplier.apply(old: outlines[i], update: u, new: outlines[j])
                            _ = try ChangesApplier.apply(old: contents[i], update: u, new: contents[j], contentMode: true)
                        } catch {
                            XCTFail("\(at): \(error)\nupdate \(u)")
                            continue
                        }
                        // Flags are exact: no update reported for unchanged content.
                        for p in u.rows.updated {
                            let item = contents[i][p.section].rows[p.row]!
                            let id = item.prefix { $0 != "|" }
                            let now = contents[j].flatMap(\.rows).first { $0!.prefix { $0 != "|" } == id }!!
                            XCTAssertNotEqual(item, now, "\(at): \(p) updated without a change")
                        }
                        for m in u.rows.moved {
                            let before = contents[i][m.from.section].rows[m.from.row]!
                            let after = contents[j][m.to.section].rows[m.to.row]!
                            XCTAssertEqual(before != after, m.updated, "\(at): move \(m)")
                        }
                        // Small: one row op per changed id at most, and one op for one record.
                        let rowOps = u.rows.deleted.count + u.rows.inserted.count + u.rows.moved.count + u.rows.updated.count
                        XCTAssertLessThanOrEqual(rowOps, changed.count, at)
                        if j == i + 1 && written[j].count == 1 { XCTAssertLessThanOrEqual(rowOps, 1, at) }
                        // Sections: never moved; surviving sections are updated exactly when their header changed;
                        // deleted/inserted only when the section (key, spec, raw key) is gone/new.
                        XCTAssertEqual(u.sections.moved, [], at)
                        let old = snaps[i], new = snaps[j]
                        for s in 0..<old.sectionCount where !u.sections.deleted.contains(s) {
                            guard let t = new.sectionIndex(forKey: old.sections[s].key) else { XCTFail("\(at): survivor \(s) missing"); continue }
                            XCTAssertEqual(u.sections.updated.contains(s), headers[i][s] != headers[j][t], "\(at): section \(s)")
                        }
                        for s in u.sections.deleted {
                            if let t = new.sectionIndex(forKey: old.sections[s].key) {
                                XCTAssertTrue(old.sections[s].spec != new.sections[t].spec || old.sections[s].rawKey != new.sections[t].rawKey,
                                              "\(at): needless delete of \(s)")
                            }
                        }
                        for t in u.sections.inserted {
                            if let s = old.sectionIndex(forKey: new.sections[t].key) {
                                XCTAssertTrue(u.sections.deleted.contains(s), "\(at): needless insert of \(t)")
                            }
                        }
                        stats.rowOps += rowOps
                        stats.sectionOps += u.operationCount - rowOps
                        stats.moves += u.rows.moved.count
                        stats.updated += u.rows.updated.count
                        stats.movedUpdated += u.rows.moved.filter(\.updated).count
                    }
                }
            }
        }
        // The histories exercised every kind of operation.
        XCTAssertGreaterThan(stats.pairs, 8000)
        XCTAssertGreaterThan(stats.moves, 1000)
        XCTAssertGreaterThan(stats.updated, 1000)
        XCTAssertGreaterThan(stats.movedUpdated, 100)
        XCTAssertGreaterThan(stats.sectionOps, 1000)
    }

    /// A changed-id set with extra ids (rows that did not change) still gives a valid answer,
    /// and the same one when the extra rows are elsewhere.
    func testExtraChangedIDsStayValid() throws {
        var rng = SplitMix64(seed: 99)
        var store: [String: [String: JSONObject]] = ["a": [:], "b": [:]]
        var list = ListSnapshot.build(definition: ChangesPropertyTests.def, records: [:])
        var same = 0
        let all = Set((0..<24).map { "r\($0)" } + ["q", "nope"])
        for _ in 0..<300 {
            let old = list
            let id = ChangesPropertyTests.write(&store, &list, &rng)
            let exact = list.changes(from: old, changedRowIDs: [id], view: ViewState(), maxChanges: .max)!
            let loose = list.changes(from: old, changedRowIDs: all, view: ViewState(), maxChanges: .max)!
            _ = try ChangesApplier.apply(old: old.changesOutline(view: ViewState(), content: true), update: loose,
                                         new: list.changesOutline(view: ViewState(), content: true), contentMode: true)
            XCTAssertEqual(loose.sections, exact.sections)
            if loose == exact { same += 1 }
        }
        XCTAssertGreaterThan(same, 250)
    }
}
