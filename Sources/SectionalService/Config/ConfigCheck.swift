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
    /// catches broken seed files. Throws ``ConfigError``.
    public func summarizeLists() throws(ConfigError) -> [ListSummary] {
        let store = MemoryStore()
        try Seeder.seed(seeds, into: store, log: Log(level: .error))
        do {
            var records: [String: [JSONValue]] = [:]
            for source in Set(lists.flatMap(\.sources)) {
                records[source] = try ViewModelStore.parseAll(try store.allRecords(in: source), collection: source, log: Log(level: .error))
            }
            return lists.map { definition in
                let snapshot = ListSnapshot.build(definition: definition, records: records)
                return ListSummary(name: definition.name, sectionCount: snapshot.sectionCount, rowCount: snapshot.totalRowCount,
                                   sources: definition.sources, scopeField: definition.scope?.field.description,
                                   specs: snapshot.specReports(records: records))
            }
        } catch {
            throw ConfigError(path: "", "cannot build lists: \(error)")
        }
    }
}
