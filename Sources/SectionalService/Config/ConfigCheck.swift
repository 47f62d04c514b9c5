import ListModel
import ListStore

/// What `sectional check` reports of each list: built from the seed data in memory.
public struct ListSummary: Sendable {
    public let name: String
    public let sectionCount: Int
    public let rowCount: Int
    public let sources: [String]
    /// The field a per-user list is split by (its counts are every user's rows together).
    public let scopeField: String?
    /// Per section spec: what the seed data made of it, and its warnings.
    public let specs: [SpecReport]
}

extension Configuration {
    /// Loads the seeds into a memory store and builds every list from them, so a check also
    /// catches broken seed files; returns each list's summary and what each seed file stored
    /// (with its repeated ids). Throws ``ConfigError``.
    public func summarize() throws(ConfigError) -> (lists: [ListSummary], seeds: [SeedSummary]) {
        let store = MemoryStore()
        let seeded = try Seeder.seed(seeds, into: store, log: Log(level: .error))
        do {
            var records: [String: [JSONValue]] = [:]
            for source in Set(lists.flatMap(\.sources)) {
                records[source] = try ViewModelStore.parseAll(try store.allRecords(in: source), collection: source, log: Log(level: .error))
            }
            let summaries = lists.map { definition in
                let snapshot = ListSnapshot.build(definition: definition, records: records)
                return ListSummary(name: definition.name, sectionCount: snapshot.sectionCount, rowCount: snapshot.totalRowCount,
                                   sources: definition.sources, scopeField: definition.scope?.field.description,
                                   specs: Self.specReports(snapshot, records: records))
            }
            return (summaries, seeded)
        } catch {
            throw ConfigError(path: "", "cannot build lists: \(error)")
        }
    }

    /// The snapshot's reports, with the warnings the list's other languages add: a language's row
    /// templates may name fields the others do not (each such warning says which language).
    private static func specReports(_ snapshot: ListSnapshot, records: [String: [JSONValue]]) -> [SpecReport] {
        var reports = snapshot.specReports(records: records)
        let definition = snapshot.definition
        for language in definition.languages where language != definition.language {
            let localized = definition.localized(language, formats: Localization.formats(for: language))
            let other = ListSnapshot.build(definition: localized, records: records).specReports(records: records)
            for (i, report) in other.enumerated() where i < reports.count {
                let known = Set(reports[i].warnings)
                let added = report.warnings.filter { !known.contains($0) }.map { "\($0) (\(language))" }
                guard !added.isEmpty else { continue }
                reports[i] = reports[i].adding(warnings: added)
            }
        }
        return reports
    }
}
