// sectional-bench: micro-benchmarks. `swift run -c release sectional-bench <suite>`.
// Suites: `model` (ListModel build, upsert, page render, memory, JSON parse), `changes` (batch-update diff), `render` (page render, 1 and 2 threads),
// `batch` (bulk import in write batches).

let args = Array(CommandLine.arguments.dropFirst())
switch args.first {
case "model":
    ModelBench.run(arguments: Array(args.dropFirst()))
case "changes":
    ChangesBench.run(arguments: Array(args.dropFirst()))
case "render":
    RenderBench.run(arguments: Array(args.dropFirst()))
case "batch":
    BatchBench.run(arguments: Array(args.dropFirst()))
default:
    print("""
    usage: sectional-bench <suite> [options]
      model [--small] [--build-only]   ListModel: JSON parse, build 100k/1M rows, memory per row,
                                       upsert/delete p50/p99, 50-row page render, tag look-up
        [--only upsert|delete|page [--rounds N]]
                                       after the build, only that phase, N (3) times over the
                                       same list: p50 per round (a focused profiling harness)
      changes [--rows N] [--runs N] [--sizes 10,1000,10000]
                                       batch-update diff + JSON answer after N random writes
                                       on the 100k-row demo list (p50 over runs)
      render [--rows N] [--seconds S] [--threads 1|2] [--people]
                                       50-row page cut + write on one shared snapshot:
                                       1-thread p50/p99, then 2 threads for S s (pages/s total);
                                       demo contacts list (--people: the model suite's list)
      batch [--rows N] [--batch N] [--sequential] [--cores]
                                       import N (1M) demo people records in batches of 2,500 into
                                       an empty list: model records/s, batch p50 at ~100k/~1M
                                       rows, mixed-batch p50, single upsert p50 (--sequential:
                                       one apply per record, the pre-bulk path)
    """)
}
