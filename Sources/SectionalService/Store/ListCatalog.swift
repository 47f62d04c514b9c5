import ListModel
import ListStore

/// The lists being served: the config file's definitions with the run-time ones (stored with
/// the records) laid over them. A run-time definition replaces a config list of the same name in
/// its place; lists that exist only at run time follow the config's, by name.
struct ListCatalog: Sendable {
    /// A definition changed at run time, with its revision.
    struct Runtime: Sendable {
        let definition: ListDefinition
        let revision: Int64
    }

    /// The config file's lists, in its order.
    private(set) var config: [ListDefinition]
    /// Live run-time definitions by list.
    private(set) var runtime: [String: Runtime] = [:]
    /// Per list: the lowest version it may show — its version at start, or the change number of
    /// its last definition change (a partition built later never shows less).
    private(set) var floors: [String: Int64] = [:]
    /// Per list: the change number of its last definition change, when it has had one.
    private(set) var changed: [String: Int64] = [:]
    /// Per list: fingerprints of the definitions it served before (newest last, a few), so a page
    /// token of a walk the change cut short is told to reload rather than refused as foreign.
    private(set) var retired: [String: [UInt64]] = [:]
    /// Lists whose stored run-time definition did not decode at start (written by a later
    /// release): not served, so a `PUT` of one creates it.
    private(set) var skipped: Set<String> = []
    /// The definitions in force, in serving order.
    private(set) var definitions: [ListDefinition] = []
    /// Collections some per-user list reads (a write to them must say whose records it moved).
    private(set) var scopedCollections: Set<String> = []
    /// Collections some list with `access: users` reads (their records are private).
    private(set) var privateCollections: Set<String> = []

    /// Definitions a list served before that page tokens are told to reload under (the oldest dropped).
    static let retiredKept = 8

    init(config: [ListDefinition]) {
        self.config = config
        rebuild()
    }

    /// The definition in force for `name`, or nil.
    func definition(_ name: String) -> ListDefinition? {
        definitions.first { $0.name == name }
    }

    /// Where the definition in force comes from, and its revision (0 for the config's).
    func origin(of name: String) -> (runtime: Bool, revision: Int64)? {
        if let runtime = runtime[name] { return (true, runtime.revision) }
        return config.contains { $0.name == name } ? (false, 0) : nil
    }

    /// Lays `definition` over list `name` (nil: removes the run-time definition), from change
    /// `sequence` on.
    mutating func setRuntime(_ name: String, _ definition: ListDefinition?, revision: Int64, at sequence: Int64) {
        let before = self.definition(name)
        runtime[name] = definition.map { Runtime(definition: $0, revision: revision) }
        skipped.remove(name)
        settle(name, before: before, at: sequence)
    }

    /// Replaces the config file's lists; returns the names whose definition in force changed.
    mutating func setConfig(_ lists: [ListDefinition]) -> [String] {
        let names = Set(config.map(\.name)).union(lists.map(\.name))
        let before = Dictionary(uniqueKeysWithValues: names.map { ($0, definition($0)) })
        config = lists
        rebuild()
        return names.filter { before[$0]??.fingerprint != definition($0)?.fingerprint }.sorted()
    }

    /// Notes that `name`'s definition changed at `sequence`.
    mutating func settle(_ name: String, before: ListDefinition?, at sequence: Int64) {
        rebuild()
        if let before { retire(name, before) }
        floors[name] = sequence
        changed[name] = sequence
    }

    /// Counts `definition` (as served: in its first language) among those list `name` served
    /// before, unless it is the one in force or counted already: a page token minted under it,
    /// in any language (tokens are bound to this fingerprint and their language), is told to reload.
    mutating func retire(_ name: String, _ definition: ListDefinition) {
        guard definition.fingerprint != self.definition(name)?.fingerprint else { return }
        var list = retired[name] ?? []
        if !list.contains(definition.fingerprint) { list.append(definition.fingerprint) }
        if list.count > Self.retiredKept { list.removeFirst(list.count - Self.retiredKept) }
        retired[name] = list
    }

    /// Sets the version floor of a list (at start).
    mutating func setFloor(_ name: String, _ version: Int64) { floors[name] = version }

    /// Notes at start what the store says of `name`'s served definition (``ServedChange``).
    mutating func served(_ name: String, _ change: ServedChange) {
        floors[name] = max(floors[name] ?? 0, change.sequence)
        // Whether the definition came into force at this start or at an earlier one (or on
        // another instance): partitions built later never show less.
        if change.sequence > 0 { changed[name] = max(changed[name] ?? 0, change.sequence) }
        guard let before = change.changedFrom else { return }
        retired[name, default: []].append(before)
    }

    private mutating func rebuild() {
        var list = config.map { runtime[$0.name]?.definition ?? $0 }
        let configNames = Set(config.map(\.name))
        list += runtime.keys.filter { !configNames.contains($0) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            .compactMap { runtime[$0]?.definition }
        // Served in their first language (its strings and formats).
        definitions = list.map(Localization.base)
        scopedCollections = Set(list.filter { $0.scope != nil }.flatMap(\.sources))
        privateCollections = Set(list.filter { $0.access == .users }.flatMap(\.sources))
    }

    /// Puts the stored run-time definitions in place at start; ones that no longer decode are
    /// skipped and returned with their errors.
    mutating func load(_ stored: [StoredDefinition]) -> [(list: String, errors: DefinitionErrors)] {
        var failed: [(String, DefinitionErrors)] = []
        for entry in stored {
            floors[entry.list] = max(floors[entry.list] ?? 0, entry.sequence)
            changed[entry.list] = entry.sequence
            guard let json = entry.json else { continue }
            do {
                let value = try JSONParser.parse(json)
                runtime[entry.list] = Runtime(definition: try ListDefinitions.decode(name: entry.list, value, path: "$", zones: TimeZones.offsets),
                                              revision: entry.revision)
            } catch let error as DefinitionErrors {
                failed.append((entry.list, error))
                skipped.insert(entry.list)
            } catch {
                failed.append((entry.list, DefinitionErrors([DefinitionError(path: "$", message: "\(error)")])))
                skipped.insert(entry.list)
            }
        }
        rebuild()
        return failed
    }
}
