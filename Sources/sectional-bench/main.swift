// sectional-bench: micro-benchmarks. `swift run -c release sectional-bench <suite>`.
// Suites: `model` (ListModel build, upsert, page render, memory, JSON parse).

let args = Array(CommandLine.arguments.dropFirst())
switch args.first {
case "model":
    ModelBench.run(arguments: Array(args.dropFirst()))
default:
    print("""
    usage: sectional-bench <suite> [options]
      model [--small]   ListModel: build 100k/1M rows, upsert p50/p99, 50-row page render, memory per row
    """)
}
