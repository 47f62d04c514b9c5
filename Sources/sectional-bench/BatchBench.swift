import Dispatch
import ListModel

/// The `batch` suite: bulk import like `POST /v1/collections/{c}/batch` — the demo people
/// records in batches into an initially empty list, each batch applied to the model as the
/// store's `commit` does (the previous snapshot kept alive, as the list history keeps it).
enum BatchBench {
    static func run(arguments: [String]) {
        var rows = 1_000_000
        var batch = 2_500
        var sequential = false
        var parallelism = Parallelism.serial
        var k = 0
        while k < arguments.count {
            switch arguments[k] {
            case "--rows": k += 1; rows = Int(arguments[k]) ?? rows
            case "--batch": k += 1; batch = Int(arguments[k]) ?? batch
            case "--sequential": sequential = true
            case "--cores": parallelism = Parallelism { DispatchQueue.concurrentPerform(iterations: $0, execute: $1) }
            default: break
            }
            k += 1
        }
        let def = ModelBench.definition()
        var rng = SplitMix64(seed: 2024)
        let records = (0..<rows).map { ModelBench.record($0, &rng) }
        let mode = sequential ? "one apply(_:) per record" : "apply([RecordChange]) per batch, parts \(arguments.contains("--cores") ? "on every core" : "on one thread")"
        print("sectional-bench batch — import \(rows) demo people records in batches of \(batch) into an empty list (\(mode))")

        func applyBatch(_ list: inout ListSnapshot, _ changes: [RecordChange]) {
            if sequential {
                for c in changes { list.apply(c, collection: "people") }
            } else {
                list.apply(changes, collection: "people", parallelism: parallelism)
            }
        }

        var list = ListSnapshot.build(definition: def, records: ["people": []])
        var keep: ListSnapshot? = nil
        var total: UInt64 = 0
        var near100k: [UInt64] = []
        var near1M: [UInt64] = []
        var start = 0
        while start < rows {
            let end = min(start + batch, rows)
            let changes = records[start..<end].map { RecordChange.upsert($0) }
            let t0 = nowNanos()
            keep = list          // drops the snapshot before (its replaced chunks and rows)
            applyBatch(&list, changes)
            let dt = nowNanos() - t0
            total += dt
            if start >= 87_500 && end <= 112_500 { near100k.append(dt) }
            if rows >= 1_000_000 && start >= 975_000 && end <= 1_000_000 { near1M.append(dt) }
            start = end
        }
        _ = keep
        precondition(list.totalRowCount == rows, "imported \(list.totalRowCount) rows")
        print("import    \(rows) records: model apply (+ dropping old snapshots) \(seconds(total)) = \(Int(Double(rows) / (Double(total) / 1e9))) records/s  (\(list.sectionCount) sections)")
        near100k.sort(); near1M.sort()
        if !near100k.isEmpty { print("batch     \(batch) new records at ~100k rows: p50 \(micros(percentile(near100k, 0.5)))  (\(near100k.count) batches)") }
        if !near1M.isEmpty { print("batch     \(batch) new records at ~1M rows:   p50 \(micros(percentile(near1M, 0.5)))  (\(near1M.count) batches)") }

        // Mixed batches on the full list (70% existing ids, half of those change team; 10% deletes),
        // each from the same base.
        var mixed: [UInt64] = []
        var mrng = SplitMix64(seed: 11)
        for run in 0..<9 {
            var changes: [RecordChange] = []
            changes.reserveCapacity(batch)
            for j in 0..<batch {
                let dice = Int.random(in: 0..<10, using: &mrng)
                if dice == 0 {
                    changes.append(.delete(id: "p\(Int.random(in: 0..<rows, using: &mrng))"))
                } else {
                    let id = dice < 8 ? Int.random(in: 0..<rows, using: &mrng) : rows + run * batch + j
                    changes.append(.upsert(ModelBench.record(id, &mrng)))
                }
            }
            var copy = list
            let t0 = nowNanos()
            applyBatch(&copy, changes)
            mixed.append(nowNanos() - t0)
        }
        mixed.sort()
        print("batch     \(batch) mixed writes at \(list.totalRowCount) rows: p50 \(micros(percentile(mixed, 0.5)))")

        // Single upserts (as the `model` suite measures them).
        var samples: [UInt64] = []
        var urng = SplitMix64(seed: 7)
        for k in 0..<10_000 {
            let existing = Int.random(in: 0..<10, using: &urng) < 7
            let id = existing ? Int.random(in: 0..<rows, using: &urng) : rows + 100_000 + k
            let r = ModelBench.record(id, &urng)
            keep = list
            let t0 = nowNanos()
            list = list.applying(.upsert(r), collection: "people")
            samples.append(nowNanos() - t0)
        }
        _ = keep
        samples.sort()
        print("upsert    \(samples.count)× single into \(list.totalRowCount) rows: p50 \(micros(percentile(samples, 0.5)))  p99 \(micros(percentile(samples, 0.99)))")
    }
}
