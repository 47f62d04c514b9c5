import Dispatch
import ListModel
import Synchronization

/// Every materialization held in memory — each list that is the same for everyone, the
/// partitions of per-user lists that have been read, their other languages and the results of
/// searches — with its current state and `changes` history, under one lock.
///
/// Lists that are the same for everyone are pinned. Partitions are built on their first read
/// and kept while their rows fit `maxResidentRows` in all; past it the least recently read are
/// evicted (in batches of 1% of the budget, so a full cache sorts once per hundredth of its
/// size rather than once per build). A partition evicted is rebuilt on its next read at the same
/// version (kept in ``Contents/versions`` and in the store), so its entity tags never go back.
final class MaterializationCache: Sendable {
    struct Entry {
        var state: ListState
        let history: ListHistory
        /// Order of last read, for eviction.
        var lastRead: UInt64
        let pinned: Bool
    }

    struct Contents {
        var entries: [MaterializationKey: Entry] = [:]
        /// The version of every partition written since start (resident or not); others take
        /// theirs from the store.
        var versions: [MaterializationKey: Int64] = [:]
        /// Per list: the change number of its last definition change (a build begun before it
        /// is not installed).
        var epochs: [String: Int64] = [:]
        /// Per whole list (or partition, per language): its resident search results.
        var queries: [MaterializationKey: Set<MaterializationKey>] = [:]
        var residentRows = 0
        var residentPartitions = 0
        var tick: UInt64 = 0
        var evictions: UInt64 = 0
    }

    let maxResidentRows: Int
    private let contents = Mutex(Contents())

    init(maxResidentRows: Int) { self.maxResidentRows = max(1, maxResidentRows) }

    /// The current state of a materialization, marking it read; nil when it is not in memory.
    func read(_ key: MaterializationKey) -> ListState? {
        contents.withLock { contents in
            guard let index = contents.entries.index(forKey: key) else { return nil }
            contents.tick += 1
            contents.entries.values[index].lastRead = contents.tick
            return contents.entries.values[index].state
        }
    }

    /// The current state without marking a read (the writer's look).
    func peek(_ key: MaterializationKey) -> ListState? { contents.withLock { $0.entries[key]?.state } }

    func history(_ key: MaterializationKey) -> ListHistory? { contents.withLock { $0.entries[key]?.history } }

    /// Pins a list that is the same for everyone (at start).
    func pin(_ key: MaterializationKey, state: ListState) {
        contents.withLock { contents in
            contents.entries[key] = Entry(state: state, history: ListHistory(version: state.version, snapshot: state.snapshot),
                                          lastRead: 0, pinned: true)
        }
    }

    /// The version this process's writes gave a partition, if any did.
    func writtenVersion(of key: MaterializationKey) -> Int64? {
        contents.withLock { $0.versions[key] }
    }

    /// The version of the whole list or partition `key` names as this process knows it (resident,
    /// or written since start); nil when it knows none.
    func currentVersion(of key: MaterializationKey) -> Int64? {
        contents.withLock { Self.currentVersion(of: key, in: $0) }
    }

    private static func currentVersion(of key: MaterializationKey, in contents: Contents) -> Int64? {
        let resident = contents.entries[key]?.state.version, written = contents.versions[key]
        guard let resident else { return written }
        return max(resident, written ?? resident)
    }

    /// The resident search results of a whole list or partition (`base`), with their states
    /// (one look for all of them: a write moves each).
    func queries(of base: MaterializationKey) -> [(key: MaterializationKey, state: ListState)] {
        contents.withLock { contents in
            guard let keys = contents.queries[base] else { return [] }
            return keys.compactMap { key in contents.entries[key].map { (key, $0.state) } }
        }
    }

    /// Installs a partition built at `state`'s version, unless a write applied since has moved it
    /// past that version (then nil: build again) — for a search result, the version of the list
    /// or partition it is taken from. When another reader installed it first, that state wins.
    /// Evicts past the budget; victims are freed off the caller's path.
    func install(_ key: MaterializationKey, state: ListState, epoch: Int64? = nil) -> ListState? {
        var victims: [Entry] = []
        let installed = contents.withLock { contents -> ListState? in
            let moved = key.query == nil ? contents.versions[key] : Self.currentVersion(of: key.base, in: contents)
            guard (moved ?? 0) <= state.version, contents.epochs[key.list] == epoch else { return nil }
            contents.tick += 1
            if let existing = contents.entries[key] {
                contents.entries[key]!.lastRead = contents.tick
                return existing.state
            }
            contents.entries[key] = Entry(state: state, history: ListHistory(version: state.version, snapshot: state.snapshot),
                                          lastRead: contents.tick, pinned: false)
            contents.residentRows += state.snapshot.totalRowCount
            contents.residentPartitions += 1
            if key.query != nil { contents.queries[key.base, default: []].insert(key) }
            if contents.residentRows > maxResidentRows { victims = evict(&contents, keeping: key) }
            return state
        }
        release(victims)
        return installed
    }

    /// The change number of the list's last definition change in this process, if any.
    func epoch(of list: String) -> Int64? { contents.withLock { $0.epochs[list] } }

    /// A list's definition changed at `epoch`: forgets everything held for it — its state, its
    /// partitions, their versions and histories — and pins `state` (nil: the list is gone).
    /// Returns the keys that were resident.
    @discardableResult
    func replaceList(_ list: String, with state: ListState?, epoch: Int64) -> [MaterializationKey] {
        var victims: [Entry] = []
        let keys = contents.withLock { contents -> [MaterializationKey] in
            contents.epochs[list] = epoch
            for key in contents.versions.keys where key.list == list { contents.versions.removeValue(forKey: key) }
            for key in contents.queries.keys where key.list == list { contents.queries.removeValue(forKey: key) }
            let keys = contents.entries.keys.filter { $0.list == list }
            for key in keys {
                guard let entry = contents.entries.removeValue(forKey: key) else { continue }
                if !entry.pinned {
                    contents.residentRows -= entry.state.snapshot.totalRowCount
                    contents.residentPartitions -= 1
                }
                victims.append(entry)
            }
            if let state {
                contents.entries[MaterializationKey(list: list, partition: state.partition)] = Entry(
                    state: state, history: ListHistory(version: state.version, snapshot: state.snapshot), lastRead: 0, pinned: true)
            }
            return keys
        }
        release(victims)
        return keys
    }

    /// Publishes the writer's new states and partition versions in one step. A partition (or
    /// search result) the writer found absent but a reader installed meanwhile (built at an
    /// earlier version) is dropped, to be rebuilt; a state for a partition evicted meanwhile is
    /// not brought back.
    func publish(_ states: [MaterializationKey: ListState], partitionVersions: [MaterializationKey: Int64]) {
        var victims: [Entry] = []
        contents.withLock { contents in
            func dropStale(_ key: MaterializationKey, below version: Int64) {
                if states[key] == nil, let entry = contents.entries[key], entry.state.version < version,
                   let stale = Self.remove(key, from: &contents) {
                    victims.append(stale)
                }
            }
            for (key, version) in partitionVersions {
                contents.versions[key] = max(contents.versions[key] ?? 0, version)
                dropStale(key, below: version)
            }
            var moved = partitionVersions
            for (key, state) in states where key.query == nil { moved[key] = max(moved[key] ?? 0, state.version) }
            for (base, version) in moved {
                for key in contents.queries[base] ?? [] { dropStale(key, below: version) }
            }
            for (key, next) in states {
                guard let entry = contents.entries[key] else { continue }
                if !entry.pinned { contents.residentRows += next.snapshot.totalRowCount - entry.state.snapshot.totalRowCount }
                contents.entries[key]!.state = next
            }
        }
        release(victims)
    }

    /// Removes least recently read partitions (never pinned lists, never `keeping`) until the
    /// rows fit 99% of the budget.
    private func evict(_ contents: inout Contents, keeping: MaterializationKey) -> [Entry] {
        let target = maxResidentRows - maxResidentRows / 100
        let candidates = contents.entries.filter { !$0.value.pinned && $0.key != keeping }
            .map { (key: $0.key, lastRead: $0.value.lastRead) }.sorted { $0.lastRead < $1.lastRead }
        var victims: [Entry] = []
        for candidate in candidates {
            guard contents.residentRows > target else { break }
            guard let entry = Self.remove(candidate.key, from: &contents) else { continue }
            contents.evictions += 1
            victims.append(entry)
        }
        return victims
    }

    /// Removes a partition (never a pinned list) from memory.
    private static func remove(_ key: MaterializationKey, from contents: inout Contents) -> Entry? {
        guard let entry = contents.entries.removeValue(forKey: key) else { return nil }
        contents.residentRows -= entry.state.snapshot.totalRowCount
        contents.residentPartitions -= 1
        if key.query != nil {
            contents.queries[key.base]?.remove(key)
            if contents.queries[key.base]?.isEmpty == true { contents.queries.removeValue(forKey: key.base) }
        }
        return entry
    }

    /// Frees evicted snapshots on a queue of their own (freeing many rows takes time).
    private func release(_ victims: [Entry]) {
        guard !victims.isEmpty else { return }
        Self.reaper.async { withExtendedLifetime(victims) {} }
    }

    private static let reaper = DispatchQueue(label: "sectional.partitions.reaper", qos: .utility)

    /// Resident partitions, their rows, and evictions since start.
    var statistics: (partitions: Int, rows: Int, evictions: UInt64) {
        contents.withLock { ($0.residentPartitions, $0.residentRows, $0.evictions) }
    }

    /// Every pinned list's state.
    func pinnedStates() -> [MaterializationKey: ListState] {
        contents.withLock { contents in
            var result: [MaterializationKey: ListState] = [:]
            for (key, entry) in contents.entries where entry.pinned { result[key] = entry.state }
            return result
        }
    }

    /// Each materialization's history size, pinned lists by name and partitions summed per list.
    func historySizes() -> [String: (versions: Int, rows: Int)] {
        let histories = contents.withLock { $0.entries.map { ($0.key.list, $0.value.history) } }
        var sizes: [String: (versions: Int, rows: Int)] = [:]
        for (list, history) in histories {
            let size = history.size
            sizes[list, default: (0, 0)].versions += size.versions
            sizes[list, default: (0, 0)].rows += size.rows
        }
        return sizes
    }
}
