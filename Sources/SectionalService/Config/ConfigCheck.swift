import ListModel
import ListStore

/// What `sectional check` reports of each list: built from the seed data in memory.
public struct ListSummary: Sendable {
    public let name: String
    public let sectionCount: Int
    public let rowCount: Int
    public let sources: [String]
}

extension Configuration {
    /// Loads the seeds into a memory store and builds every list from them, so a check also
    /// catches broken seed files. Throws ``ConfigError``.
    public func summarizeLists() throws(ConfigError) -> [ListSummary] {
        let store = MemoryStore()
        try Seeder.seed(seeds, into: store, log: Log(level: .error))
        do {
            let lists = try ViewModelStore(definitions: lists, store: store, log: Log(level: .error))
            return lists.allLists().map {
                ListSummary(name: $0.name, sectionCount: $0.snapshot.sectionCount, rowCount: $0.snapshot.totalRowCount,
                            sources: $0.definition.sources)
            }
        } catch {
            throw ConfigError(path: "", "cannot build lists: \(error)")
        }
    }
}
