import Foundation
import ListModel
import SectionalService

/// Writes a line to stderr. A write that fails (a closed pipe, `/dev/full`) is given up: the
/// command still ends with its own exit status (`FileHandle.write(_:)` traps on a failed write).
func printError(_ text: String) {
    try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
}

/// `sectional check`: validates the config and prints each list and what the seed data makes of
/// each of its section specs, with warnings about the data; or every error with its path.
func check(configPath: String) -> Int32 {
    do {
        // With the environment `serve` would read (`SECTIONAL_DATABASE_URL` for a PostgreSQL
        // store, `SECTIONAL_PORT`…), so the two agree; the secret, when set, must be usable, but
        // need not be set (a config is checked where the secret is not kept).
        var configuration = try Configuration.load(path: configPath)
        configuration.userTokenSecret = configuration.users?.secretEnvironmentVariable.flatMap {
            ProcessInfo.processInfo.environment[$0].flatMap { $0.isEmpty ? nil : $0 }
        }
        _ = try configuration.userTokenVerifier(requireSecret: false)
        let (summaries, seeds) = try configuration.summarize()
        print("\(configPath): OK, \(counted(summaries.count, "list"))")
        for seed in seeds {
            if let warning = seed.warning { print("  seed \(seed.collection): warning: \(warning)") }
        }
        for list in summaries {
            let sources = list.sources.isEmpty ? "no collections" : list.sources.joined(separator: ", ")
            let scope = list.scopeField.map { "; per user, by \($0)" } ?? ""
            print("  \(list.name): \(counted(list.sectionCount, "section")), \(counted(list.rowCount, "row")) with the seed data (reads \(sources)\(scope))")
            for spec in list.specs {
                let from = spec.source.map { "from \($0)" } ?? "literal rows"
                print("    sections[\(spec.index)] (\(from)): \(counted(spec.sections, "section")), \(counted(spec.rows, "row"))")
                for warning in spec.warnings { print("      warning: \(warning)") }
            }
        }
        return 0
    } catch {
        printError("\(configPath): \(counted(error.issues.count, "error"))")
        for issue in error.issues { printError("  \(issue)") }
        return 1
    }
}

/// Tells on stderr why `serve` cannot start, in the one format of every start-up failure (a config
/// that cannot be read or is invalid, a port in use, a store that cannot be opened): `sectional:
/// cannot start with PATH:`, then each problem on a line of its own. (A port in use and a store
/// were a JSON log line `"msg":"cannot start"` of their own.)
func printCannotStart(_ configPath: String, _ problems: [String]) {
    printError("sectional: cannot start with \(configPath):")
    for problem in problems { printError("  \(problem)") }
}

/// `sectional serve`: runs until SIGINT or SIGTERM, then stops gracefully and exits 0.
func serve(configPath: String, overrides: ConfigurationOverrides, allowUnauthenticatedWrites: Bool) -> Int32 {
    // Caught before the config is read (a large one takes a second): a SIGTERM or SIGINT then
    // stops the start gracefully once it is done, and a SIGHUP re-reads the file once the
    // server is ready (the file may have been edited after it was read).
    let signals = TerminationSignals()
    let reload = ReloadSignal()
    let configuration: Configuration
    do {
        configuration = try Configuration.load(path: configPath, overrides: overrides)
        try SectionalServer.checkBindSafety(configuration, allowUnauthenticatedWrites: allowUnauthenticatedWrites)
        _ = try configuration.userTokenVerifier()
        _ = try configuration.webhookTargets()
    } catch {
        printCannotStart(configPath, error.issues.map { "\($0)" })
        return 1
    }
    let log = Log(level: configuration.logLevel)
    let app = SectionalServer(configuration: configuration, log: log)
    // Reloads from now on (a reload waits until the server is ready).
    reload.start { [app] in
        app.reloadLists(configPath: configPath, overrides: overrides)
    }
    do {
        try app.start()
    } catch {
        log.flush()  // the lines logged before it (`listening`, `storage`) come first
        printCannotStart(configPath, ["\(error)"])
        return 1
    }
    signals.wait()
    withExtendedLifetime(reload) {}
    log.info("stopping", ["reason": "signal"])
    app.stop(gracePeriod: 10)
    log.info("stopped")
    // Bounded: a reader of stderr that stopped reading (a full pipe) does not hold up the exit.
    log.flush()
    return 0
}
