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
    exit(backup(to: options.backupPath ?? "", configPath: configPath, dataPath: data))
case .serve:
    exit(serve(configPath: configPath, overrides: overrides, allowUnauthenticatedWrites: options.allowUnauthenticatedWrites))
}
