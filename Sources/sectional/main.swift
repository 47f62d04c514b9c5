import Foundation
import SectionalService

let version = "0.1.0"

// A reader of stderr or stdout that goes away (`| tee` ended, a log shipper restarted) must not
// end the process: a write to the closed pipe then fails with EPIPE and the log drops its lines.
signal(SIGPIPE, SIG_IGN)

let options: CommandLineOptions
do {
    options = try CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    printError("sectional: \(error.message)\n\n\(CommandLineOptions.usage)")
    exit(2)
}

let environment = ProcessInfo.processInfo.environment
let configPath = options.configPath ?? environment["SECTIONAL_CONFIG"].flatMap { $0.isEmpty ? nil : $0 } ?? "config/sectional.json"
let overrides = ConfigurationOverrides(host: options.host, port: options.port, dataPath: options.dataPath, memory: options.memory,
                                       databaseURL: options.databaseURL)

switch options.command {
case .help:
    print(CommandLineOptions.usage)
case .version:
    print("sectional \(version)")
case .check:
    exit(check(configPath: configPath))
case .token:
    exit(mintToken(configPath: configPath, subject: options.subject ?? "", ttlSeconds: options.ttlSeconds ?? 3600))
case .backup:
    // Without --config, SECTIONAL_DATA names the store as --data does (with one, it overrides the
    // config's store, as for serve).
    let data = options.dataPath ?? (options.configPath == nil ? environment["SECTIONAL_DATA"].flatMap { $0.isEmpty ? nil : $0 } : nil)
    if options.dataPath == nil, data != nil, environment["SECTIONAL_DATABASE_URL"].map({ !$0.isEmpty }) == true {
        // serve would use PostgreSQL (the URL wins over SECTIONAL_DATA): a copy of the SQLite
        // file would be of a store nobody writes.
        printError("sectional: SECTIONAL_DATABASE_URL is set, so serve keeps records in PostgreSQL; back it up with pg_dump, or name the SQLite store with --data")
        exit(1)
    }
    exit(backup(to: options.backupPath ?? "", configPath: configPath, dataPath: data))
case .serve:
    exit(serve(configPath: configPath, overrides: overrides, allowUnauthenticatedWrites: options.allowUnauthenticatedWrites))
}
