// sectional-bench: micro-benchmarks. `swift run -c release sectional-bench <suite>`.
// Suites: `model` (ListModel build, upsert, page render, memory, JSON parse).

let args = Array(CommandLine.arguments.dropFirst())
switch args.first {
case "model":
    ModelBench.run(arguments: Array(args.dropFirst()))
default:
    print("""
    usage: sectional-bench <suite> [options]
      model [--small] [--build-only]   ListModel: JSON parse, build 100k/1M rows, memory per row,
                                       upsert/delete p50/p99, 50-row page render, tag look-up
    """)
}
