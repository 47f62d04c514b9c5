import Dispatch
import ListModel
import Locking
import Synchronization

/// Every materialization held in memory — each list that is the same for everyone, the
/// partitions of per-user lists that have been read, their other languages and the results of
/// searches — with its current state and `changes` history.
///
/// Lists that are the same for everyone are pinned. Partitions are built on their first read
/// and kept while their rows fit `maxResidentRows` in all; past it the least recently read are
/// evicted (in batches of 1% of the budget, so a full cache sorts once per hundredth of its
/// size rather than once per build). A partition evicted is rebuilt on its next read at the same
/// version (the store keeps it: ``RecordStore/fieldVersion(_:in:key:)``), so its entity tags
/// never go back.
///
/// Reads take no lock. Every change (install, publish, eviction, a definition change) is made
/// under one lock and published as a new immutable ``ResidentTable`` with a new generation; a
/// read loads the published generation, uses the table its thread last took when that is still
/// the one (see ``ReaderSlot``), else takes the current one under the lock — once per thread
/// per change. A read's recency mark is a relaxed atomic store on the entry (see ``Recency``),
/// skipped while the entry is already the most recently read. So a warm read of a partition, a
/// language or a search result costs one more table look-up than a read of the list itself,
/// and no reader ever waits for another.
///
/// Ordering: a change's generation is exchanged (acquiring and releasing) inside the lock after
/// its table, and before the writer goes on (before `applied` moves, so a read that waited for a
/// version sees the table that holds it); a reader loads the generation acquiring, also after
/// taking a table under the lock. The lock orders a state's builder before the readers that take
/// the table under it; a reader that takes no lock is ordered by the atomic: with every
/// publication a read-modify-write, the publications form one release sequence, so the atomic
/// carries each builder's writes to every later reader.
final class MaterializationCache: Sendable {
    typealias Entry = ResidentTable.Entry

    let maxResidentRows: Int
    /// What a partition or search result counts against ``maxResidentRows`` besides its rows and
    /// its answers (counted in ``answers``): its state and history take about as much memory as 12
    /// rows when it has none (measured: 5.3 kB a partition with no rows, 6.3 kB an empty search
    /// result, by RSS over 30,000 of each, with an answer or two each; a row of a 1,000,000-row
    /// list takes 543–554 bytes in `make bench`). So a flood of reads by made-up users or
    /// searches that match nothing is evicted like any other.
    static let rowsPerEntry = 12
    /// The answers the resident partitions, languages and search results hold, counted against
    /// ``maxResidentRows`` with their rows.
    let answers: AnswerTally
    /// Search results kept per list (or partition, per language): a write moves every resident
    /// result of its list, so their number bounds a write's cost. Measured (by hand, release
    /// build, the demo's `contacts`, median of 40 single-record writes after N distinct searches
    /// that match nothing): 0.75 ms with none resident, 0.66 with 64, 1.02 with 1,000, 2.16 with
    /// 5,000 (and 6.2 kB of memory each). Past it, the least recently read result of that list is
    /// evicted.
    static let maxResultsPerList = 64
    private let contents: Locked<Contents>
    /// The generation of the table in ``Contents/table``.
    private let published: Atomic<UInt64>
    /// Ticks of reads, for eviction (see ``Recency``).
    private let clock = Atomic<UInt64>(0)

    init(maxResidentRows: Int) {
        self.maxResidentRows = max(1, maxResidentRows)
        let initial = Contents()
        published = Atomic(initial.table.generation)
        contents = Locked(initial)
        answers = AnswerTally(limit: self.maxResidentRows)
        answers.onOverflow { [weak self] in self?.trim() }
    }

    /// Runs `body` under the lock, then publishes what it changed.
    private func change<R: Sendable>(_ body: (inout Contents) -> R) -> R {
        contents.withLock { contents in
            let result = body(&contents)
            contents.publishTable(to: published)
            answers.setOtherRows(contents.chargedRows)
            return result
        }
    }

    /// Whether the resident entries and their answers are past the budget.
    private func overBudget(_ contents: Contents) -> Bool { contents.chargedRows + answers.rows > maxResidentRows }

    /// Evicts the least recently read entries but `keeping` until the budget has 1% to spare.
    private func evictToBudget(_ contents: inout Contents, keeping: MaterializationKey? = nil) -> [Entry] {
        let target = maxResidentRows - maxResidentRows / 100
        return evict(contents.entries.filter { !$0.value.pinned && $0.key != keeping }.map(\.key), from: &contents,
                     toFit: { [answers] in $0.chargedRows + answers.rows <= target })
    }

    /// Brings the budget back within bounds after answers took it past (a read kept one). The
    /// entry read last (whose answer it most likely was) stays, alone if it must, as an entry
    /// larger than the budget is kept when built: evicting it made a partition that fits the
    /// budget, but not with a page of it kept, build again on every read.
    private func trim() {
        let victims = change { contents in
            guard overBudget(contents) else { return [Entry]() }
            let newest = contents.entries.lazy.filter { !$0.value.pinned }
                .max { $0.value.recency.lastRead.load(ordering: .relaxed) < $1.value.recency.lastRead.load(ordering: .relaxed) }
            return evictToBudget(&contents, keeping: newest?.key)
        }
        release(consume victims)
    }

    /// The current table, without the lock while this thread's last one is still current.
    private func table() -> ResidentTable {
        let generation = published.load(ordering: .acquiring)
        let slot = ReaderSlot.current
        if let table = slot.table, table.generation == generation { return table }
        let table = contents.withLock { $0.table }
        // Orders this thread after the table's publisher through the atomic as well as the lock
        // (see "Ordering" above); costs one load per thread per change.
        _ = published.load(ordering: .acquiring)
        slot.table = table
        return table
    }

    /// The current state of a materialization, marking it read; nil when it is not in memory.
    func read(_ key: MaterializationKey) -> ListState? {
        guard let entry = table().entry(key) else { return nil }
        if !entry.pinned { entry.recency.touch(clock) }
        return entry.state
    }

    /// ``read(_:)`` that also gives the entry's recency mark and the generation of the table it
    /// was found in (for ``RecentSearch``).
    func readEntry(_ key: MaterializationKey) -> (state: ListState, recency: Recency, generation: UInt64)? {
        let table = table()
        guard let entry = table.entry(key) else { return nil }
        if !entry.pinned { entry.recency.touch(clock) }
        return (Self.served(entry.state, of: key) { table.entry($0) }, entry.recency, table.generation)
    }

    /// A search result's `state` as its entry holds it, served at the version of its list
    /// (`entry` finds the list's entry in the same table): a write that does not change a
    /// result of a list that is the same for everyone leaves its entry as it was (see
    /// ``ViewModelStore/advanceQueries(of:by:sequence:next:)`` and ``ListState/serving(_:)``).
    private static func served(_ state: ListState, of key: MaterializationKey, entry: (MaterializationKey) -> Entry?) -> ListState {
        guard key.query != nil, key.partition == nil, key.language == nil, let list = entry(key.base) else { return state }
        return list.state.serving(state)
    }

    /// The current table when it is the one numbered `generation` (nothing in memory changed
    /// since a read from it); nil otherwise. A state read from that table is alive while the
    /// caller holds it.
    func table(ifGeneration generation: UInt64) -> ResidentTable? {
        let table = table()
        return table.generation == generation ? table : nil
    }

    /// Marks a read of the materialization whose recency mark is `recency`.
    func touch(_ recency: Recency) { recency.touch(clock) }

    /// The current state without marking a read (the writer's look).
    func peek(_ key: MaterializationKey) -> ListState? { table().entry(key)?.state }

    /// The history of `key`'s entry (a reader's look).
    func history(_ key: MaterializationKey) -> ListHistory? { table().entry(key)?.history }

    /// The history of `key`'s entry, for the writer to edit. For a partition, language or search
    /// result it is remembered until the next ``publish(_:partitionVersions:)``: an entry evicted
    /// meanwhile and installed again by a reader (built before the writer's commits, with a
    /// history of its own) is not the one the writer moved, and `publish` drops it rather than
    /// pair the writer's state with a history that lacks its versions (the next write would edit
    /// from that history and lose them). A list that is the same for everyone is pinned: never
    /// evicted, nothing to remember.
    func historyToEdit(_ key: MaterializationKey) -> ListHistory? {
        guard !key.isWholeList else { return history(key) }
        return contents.withLock { contents in
            let history = contents[key]?.history
            if contents.historiesLent[key] == nil { contents.historiesLent[key] = LentHistory(history) }
            return history
        }
    }

    /// Pins a list that is the same for everyone (at start).
    func pin(_ key: MaterializationKey, state: ListState) {
        change { contents in
            contents[key] = Entry(state: state, history: ListHistory(version: state.version, snapshot: state.snapshot),
                                  pinned: true, recency: Recency(0))
        }
    }

    /// Runs a build that reads storage (or resident lists) and then installs what it made
    /// (``install(_:state:epoch:)``): while it runs, the versions later writes give are kept,
    /// so that the install is refused when one of them moved the key it built (see
    /// ``WrittenVersions``). Every build that installs runs in one.
    func building<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let ticket = contents.withLock { $0.versions.beginBuild() }
        defer { contents.withLock { $0.versions.endBuild(ticket) } }
        return try body()
    }

    /// Versions of written keys kept (see ``WrittenVersions``; for tests).
    var writtenVersionCount: Int { contents.withLock { $0.versions.count } }

    /// The version of the whole list or partition `key` names as this process knows it (resident,
    /// or written while a build was in progress); nil when it knows none.
    func currentVersion(of key: MaterializationKey) -> Int64? {
        contents.withLock { Self.currentVersion(of: key, in: $0) }
    }

    private static func currentVersion(of key: MaterializationKey, in contents: Contents) -> Int64? {
        let resident = contents[key]?.state.version, written = contents.versions[key]
        guard let resident else { return written }
        return max(resident, written ?? resident)
    }

    /// The resident search results of a whole list or partition (`base`) the writer moves, with
    /// their states (one look for all of them: a write moves each). The first look since the
    /// last ``publish(_:partitionVersions:)`` is marked, and later looks give only the results
    /// installed before it: one installed after was built (by a reader, from the list before
    /// the batch of commits the writer is applying) without the commit that first looked, so
    /// a later commit must not move it on as if it held it; `publish` drops it, to be built
    /// again on its next read.
    func queries(of base: MaterializationKey) -> [ListState] {
        contents.withLock { contents in
            let looked = contents.queriesLooked[base] ?? contents.queryInstalls
            contents.queriesLooked[base] = looked
            guard let queries = contents.queries[base] else { return [] }
            return queries.values.compactMap { $0.install <= looked ? $0.state : nil }
        }
    }

    /// Installs a partition built at `state`'s version, unless a write applied since has moved it
    /// past that version (then nil: build again) — for a search result, the version of the list
    /// or partition it is taken from. When another reader installed it first, that state wins.
    /// Evicts past the budget; victims are freed off the caller's path.
    func install(_ key: MaterializationKey, state: ListState, epoch: Int64? = nil) -> ListState? {
        var victims: [Entry] = []
        let installed = change { contents -> ListState? in
            let moved = key.query == nil ? contents.versions[key] : Self.currentVersion(of: key.base, in: contents)
            guard (moved ?? 0) <= state.version, contents.epochs[key.list] == epoch else { return nil }
            if let existing = contents[key] {
                existing.recency.touch(clock)
                return Self.served(existing.state, of: key) { contents[$0] }
            }
            contents[key] = Entry(state: state, history: ListHistory(version: state.version, snapshot: state.snapshot),
                                  pinned: false, recency: Recency(clock.wrappingAdd(1, ordering: .relaxed).newValue))
            state.answers.count(in: answers)
            contents.residentRows += state.snapshot.totalRowCount
            contents.residentPartitions += 1
            contents.byKind[ResidentKind(key).rawValue].add(entry: 1, rows: state.snapshot.totalRowCount)
            if key.query != nil {
                contents.queryInstalls += 1
                contents.queries[key.base, default: [:]][key] = ResidentQuery(state: state, install: contents.queryInstalls)
                if let results = contents.queries[key.base], results.count > Self.maxResultsPerList {
                    victims += evict(results.keys.filter { $0 != key }, from: &contents, toFit: { _ in false }, count: 1)
                }
            }
            if overBudget(contents) { victims += evictToBudget(&contents, keeping: key) }
            return state
        }
        release(consume victims)
        return installed
    }

    /// The change number of the list's last definition change in this process, if any.
    func epoch(of list: String) -> Int64? { contents.withLock { $0.epochs[list] } }

    /// A list's definition changed at `epoch`: forgets everything held for it — its state, its
    /// partitions, their versions and histories — and pins `state` (nil: the list is gone).
    func replaceList(_ list: String, with state: ListState?, epoch: Int64) {
        var victims: [Entry] = []
        change { contents in
            contents.epochs[list] = epoch
            contents.versions.removeAll(ofList: list)
            for key in contents.queries.keys where key.list == list { contents.queries.removeValue(forKey: key) }
            let keys = contents.entries.filter { $0.key.list == list }.map(\.key)
            for key in keys {
                guard let entry = contents[key] else { continue }
                contents[key] = nil
                if !entry.pinned {
                    entry.state.answers.leave()
                    contents.residentRows -= entry.state.snapshot.totalRowCount
                    contents.residentPartitions -= 1
                    contents.byKind[ResidentKind(key).rawValue].add(entry: -1, rows: -entry.state.snapshot.totalRowCount)
                }
                victims.append(entry)
            }
            if let state {
                contents[MaterializationKey(list: list, partition: state.partition)] = Entry(
                    state: state, history: ListHistory(version: state.version, snapshot: state.snapshot), pinned: true,
                    recency: Recency(0))
            }
        }
        release(consume victims)
    }

    /// Publishes the writer's new states and partition versions in one step. A partition (or
    /// search result) the writer found absent but a reader installed meanwhile (built at an
    /// earlier version) is dropped, to be rebuilt, and so is one the writer edited that was
    /// evicted and installed again meanwhile (``historyToEdit(_:)``); a state for a partition evicted
    /// meanwhile is not brought back.
    func publish(_ states: [MaterializationKey: ListState], partitionVersions: [MaterializationKey: Int64]) {
        var victims: [Entry] = []
        change { contents in
            func dropStale(_ key: MaterializationKey, below version: Int64) {
                if states[key] == nil, let entry = contents[key], entry.state.version < version,
                   let stale = Self.remove(key, from: &contents) {
                    victims.append(stale)
                }
            }
            contents.versions.publish(partitionVersions)
            for (key, version) in partitionVersions { dropStale(key, below: version) }
            var moved = partitionVersions
            for (key, state) in states where key.query == nil { moved[key] = max(moved[key] ?? 0, state.version) }
            for (base, version) in moved {
                // Only results the writer did not look at can be behind: one it looked at and left
                // as it was is served at its list's version (see `ListState.serving`).
                let looked = contents.queriesLooked[base]
                for (key, query) in contents.queries[base] ?? [:] where looked.map({ query.install > $0 }) ?? true {
                    dropStale(key, below: version)
                }
            }
            for (key, next) in states {
                guard let entry = contents[key] else { continue }
                if let lent = contents.historiesLent[key], !lent.isEntry(holding: entry.history) {
                    // Not the entry the writer edited (it left and a reader's build came back):
                    // dropped, to be built again at the version published here.
                    if let stale = Self.remove(key, from: &contents) { victims.append(stale) }
                    continue
                }
                if !entry.pinned {
                    let grown = next.snapshot.totalRowCount - entry.state.snapshot.totalRowCount
                    contents.residentRows += grown
                    contents.byKind[ResidentKind(key).rawValue].add(entry: 0, rows: grown)
                    if next !== entry.state {
                        entry.state.answers.leave()
                        next.answers.count(in: answers)
                    }
                }
                contents[key] = Entry(state: next, history: entry.history, pinned: entry.pinned, recency: entry.recency)
                if key.query != nil { contents.queries[key.base]?[key]?.state = next }
            }
            contents.queriesLooked = [:]
            contents.historiesLent = [:]
        }
        var dropped: [Entry] = []
        swap(&dropped, &victims)   // `victims` is captured by `dropStale`, so it cannot be consumed
        release(consume dropped)
    }

    /// Removes the least recently read of `candidates` (partitions and results, never pinned
    /// lists) until `fits` holds or `count` are gone.
    private func evict(_ candidates: [MaterializationKey], from contents: inout Contents, toFit fits: (Contents) -> Bool,
                       count: Int = .max) -> [Entry] {
        let oldestFirst = candidates.compactMap { key in contents[key].map { (key: key, lastRead: $0.recency.lastRead.load(ordering: .relaxed)) } }
            .sorted { $0.lastRead < $1.lastRead }
        var victims: [Entry] = []
        for candidate in oldestFirst {
            guard !fits(contents), victims.count < count else { break }
            guard let entry = Self.remove(candidate.key, from: &contents) else { continue }
            contents.byKind[ResidentKind(candidate.key).rawValue].evictions += 1
            victims.append(entry)
        }
        return victims
    }

    /// Removes a partition (never a pinned list) from memory.
    private static func remove(_ key: MaterializationKey, from contents: inout Contents) -> Entry? {
        guard let entry = contents[key] else { return nil }
        contents[key] = nil
        entry.state.answers.leave()
        contents.residentRows -= entry.state.snapshot.totalRowCount
        contents.residentPartitions -= 1
        contents.byKind[ResidentKind(key).rawValue].add(entry: -1, rows: -entry.state.snapshot.totalRowCount)
        if key.query != nil {
            contents.queries[key.base]?.removeValue(forKey: key)
            if contents.queries[key.base]?.isEmpty == true { contents.queries.removeValue(forKey: key.base) }
        }
        return entry
    }

    /// Frees evicted snapshots on a queue of their own (freeing many rows takes time).
    private func release(_ victims: consuming [Entry]) {
        guard !victims.isEmpty else { return }
        Self.reaper.free(consume victims)
    }

    private static let reaper = Reaper(label: "sectional.partitions.reaper")

    /// Resident partitions, search results and other languages, their rows, and evictions since
    /// start, all kinds together.
    var statistics: (partitions: Int, rows: Int, evictions: UInt64) {
        contents.withLock { ($0.residentPartitions, $0.residentRows, $0.byKind.reduce(0) { $0 + $1.evictions }) }
    }

    /// The same, by kind, in ``ResidentKind/allCases`` order.
    var statisticsByKind: [(kind: ResidentKind, counts: ResidentCounts)] {
        let counts = contents.withLock { $0.byKind }
        return ResidentKind.allCases.map { ($0, counts[$0.rawValue]) }
    }

    /// Every pinned list's state.
    func pinnedStates() -> [MaterializationKey: ListState] {
        var result: [MaterializationKey: ListState] = [:]
        for (key, entry) in table().entries where entry.pinned { result[key] = entry.state }
        return result
    }

    /// Each materialization's history size, pinned lists by name and partitions summed per list.
    func historySizes() -> [String: (versions: Int, rows: Int)] {
        let histories = table().entries.map { ($0.key.list, $0.value.history) }
        var sizes: [String: (versions: Int, rows: Int)] = [:]
        for (list, history) in histories {
            let size = history.size
            sizes[list, default: (0, 0)].versions += size.versions
            sizes[list, default: (0, 0)].rows += size.rows
        }
        return sizes
    }
}
