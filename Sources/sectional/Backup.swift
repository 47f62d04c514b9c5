import Foundation
import ListStore
import SectionalService

/// `sectional backup --to FILE`: copies the SQLite store at `dataPath`, or the config's, with
/// SQLite's online backup API (a server may be serving and writing it meanwhile).
func backup(to destination: String, configPath: String, dataPath: String?) -> Int32 {
    let source: String
    if let dataPath {
        source = dataPath
    } else {
        do {
            let configuration = try Configuration.load(path: configPath, overrides: ConfigurationOverrides())
            switch configuration.storage {
            case .sqlite(let path): source = path
            case .memory:
                printError("sectional: \(configPath) keeps records in memory; there is nothing to back up")
                return 1
            case .postgres:
                printError("sectional: \(configPath) keeps records in PostgreSQL; back it up with pg_dump (backup copies an SQLite store)")
                return 1
            }
        } catch {
            printError("sectional: cannot back up with \(configPath):")   // the file's, or the environment's, problems
            for issue in error.issues { printError("  \(issue)") }
            return 1
        }
    }
    do {
        let summary = try SQLiteBackup.copy(from: source, to: destination)
        print("\(source) backed up to \(destination): \(summary.bytes) bytes, last change \(summary.sequence)")
        return 0
    } catch {
        printError("sectional: backup of \(source) failed: \(error)")
        return 1
    }
}
