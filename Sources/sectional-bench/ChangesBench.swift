import ListModel
import SectionalService   // the answers' envelopes

/// The `changes` suite: the batch-update diff on the demo people list (100,000 rows).
///
/// For each batch size, several runs: from the same base snapshot apply that many random record
/// writes (a third rewrite the whole record — usually a new team and a new name, so a new group
/// and sort key —, a third change only the salary (content), a sixth are new records, a sixth
/// deletes), keep the old snapshot, then time `changes(from:…)` and writing its JSON answer.
enum ChangesBench {
    static func run(arguments: [String]) {
        var rows = 100_000
        var runs = 9
        var sizes = [10, 1_000, 10_000]
        var k = 0
        while k < arguments.count {
            switch arguments[k] {
            case "--rows": k += 1; rows = Int(arguments[k]) ?? rows
            case "--runs": k += 1; runs = Int(arguments[k]) ?? runs
            case "--sizes": k += 1; sizes = arguments[k].split(separator: ",").compactMap { Int($0) }
            default: break
            }
            k += 1
        }
        let def = ModelBench.definition()
        var rng = SplitMix64(seed: 2024)
        var records = (0..<rows).map { ModelBench.record($0, &rng) }
        let base = ListSnapshot.build(definition: def, records: ["people": records])
        let view = def.defaultView
        print("sectional-bench changes — demo people list, \(base.totalRowCount) rows in \(base.sectionCount) sections; p50 of \(runs) runs")
        print("maxChanges unbounded: the full diff; last column: changes() p50 with the default maxChanges 1000")
        print("writes   ids    row ops (del/ins/mov/upd)      sec ops  JSON B     changes p50   +JSON p50    total p50    total max    max=1000 p50")

        var wrng = SplitMix64(seed: 99)
        for size in sizes {
            var diffSamples: [UInt64] = []
            var jsonSamples: [UInt64] = []
            var totalSamples: [UInt64] = []
            var defaultSamples: [UInt64] = []
            var defaultAnswer = ""
            var summary = ""
            for run in 0..<runs {
                // A batch of writes on a private copy; `old` stays as a reader would hold it.
                let old = base
                var list = base
                var changed = Set<String>(minimumCapacity: size)
                var nextNew = rows + run * size
                for _ in 0..<size {
                    let dice = Int.random(in: 0..<6, using: &wrng)
                    let i = Int.random(in: 0..<rows, using: &wrng)
                    switch dice {
                    case 0, 1:
                        let r = ModelBench.record(i, &wrng)
                        records[i] = r
                        list.apply(.upsert(r), collection: "people")
                        changed.insert("p\(i)")
                    case 2, 3:
                        guard case .object(var o) = records[i] else { continue }
                        o["salary"] = .int(Int64(Int.random(in: 40...200, using: &wrng) * 1000))
                        list.apply(.upsert(.object(o)), collection: "people")
                        changed.insert("p\(i)")
                    case 4:
                        let r = ModelBench.record(nextNew, &wrng)
                        nextNew += 1
                        list.apply(.upsert(r), collection: "people")
                        changed.insert(r["id"]!.stringValue!)
                    default:
                        list.apply(.delete(id: "p\(i)"), collection: "people")
                        changed.insert("p\(i)")
                    }
                }
                // Time the diff and the answer; repeat small ones so the clock resolves them.
                let repeats = size <= 100 ? 50 : (size <= 1000 ? 5 : 1)
                var w = JSONWriter(capacity: 1 << 16)
                for _ in 0..<repeats {
                    w.bytes.removeAll(keepingCapacity: true)
                    w = JSONWriter(appendingTo: w.bytes)
                    let t0 = nowNanos()
                    let u = list.changes(from: old, changedRowIDs: changed, view: view, maxChanges: Int.max)
                    let t1 = nowNanos()
                    ListSnapshot.writeChangesAnswer(u, list: "people", from: 1, to: 2, into: &w)
                    let t2 = nowNanos()
                    diffSamples.append(t1 - t0)
                    jsonSamples.append(t2 - t1)
                    totalSamples.append(t2 - t0)
                    let t3 = nowNanos()
                    let d = list.changes(from: old, changedRowIDs: changed, view: view, maxChanges: 1000)
                    defaultSamples.append(nowNanos() - t3)
                    defaultAnswer = d == nil ? "reload" : "diff"
                    if run == 0, let u, summary.isEmpty {
                        let r = u.rows, s = u.sections
                        let rowOps = "\(r.deleted.count)/\(r.inserted.count)/\(r.moved.count)/\(r.updated.count)"
                        summary = pad("\(changed.count)", 7) + pad(rowOps, 31)
                            + pad("\(s.deleted.count + s.inserted.count + s.moved.count + s.updated.count)", 9) + pad("\(w.bytes.count)", 11)
                    }
                }
            }
            diffSamples.sort(); jsonSamples.sort(); totalSamples.sort()
            print(pad("\(size)", 9) + summary + pad(micros(percentile(diffSamples, 0.5)), 14) + pad(micros(percentile(jsonSamples, 0.5)), 13)
                  + pad(micros(percentile(totalSamples, 0.5)), 13) + pad(micros(totalSamples.last ?? 0), 13)
                  + micros(percentile(defaultSamples, 0.5)) + " (\(defaultAnswer))")
        }
    }

    static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
}
