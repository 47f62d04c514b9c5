/// The versions the writer's commits gave partitions, languages and search bases, kept only as
/// long as a build may need them: what lets ``MaterializationCache/install(_:state:epoch:)``
/// refuse a build that read storage before a write it lacks.
///
/// A build (a partition, a language, a search result made from storage) reads a committed state
/// and installs what it made later; a write that moved the same key in between has a version
/// above the build's, and the install is refused. Once every build in progress began after a
/// version was published, each of them read storage after its commit — its state holds that
/// write, at that version or later — so the entry can refuse nothing and goes. Where a build
/// needs a key's version it reads it from the store (``RecordStore/fieldVersion(_:in:key:)``),
/// not from here.
///
/// Why: every partition written since start kept an entry here, resident or not; a server whose
/// users keep coming grew by an entry per user, outside the resident budget.
///
/// Cost: a build's ``beginBuild()`` and ``endBuild(_:)`` are a dictionary update each; pruning
/// reads every entry, and happens when the entries reach twice what the last pruning left (and
/// at least ``pruneSize``), so a publish pays O(1) amortized. What stays: at most
/// ``pruneSize`` or twice the keys published since the oldest build in progress began.
struct WrittenVersions {
    /// Entries kept before the first pruning, and the least that triggers one.
    static let pruneSize = 1024

    private var entries: [MaterializationKey: (version: Int64, published: UInt64)] = [:]
    /// Publishes so far (``publish(_:)``), numbering them.
    private var publishes: UInt64 = 0
    /// Builds in progress, counted by the number of the last publish before each began.
    private var builds: [UInt64: Int] = [:]
    private var pruneAt = WrittenVersions.pruneSize

    /// The version the last publish that moved `key` gave it, while kept.
    subscript(key: MaterializationKey) -> Int64? { entries[key]?.version }

    /// Entries kept.
    var count: Int { entries.count }

    /// Records one publish's versions (a key's version is raised, never lowered).
    mutating func publish(_ versions: [MaterializationKey: Int64]) {
        publishes += 1
        for (key, version) in versions {
            entries[key] = (max(entries[key]?.version ?? 0, version), publishes)
        }
        if entries.count >= pruneAt { prune() }
    }

    /// A build begins (before it reads storage); the ticket is for ``endBuild(_:)``.
    mutating func beginBuild() -> UInt64 {
        builds[publishes, default: 0] += 1
        return publishes
    }

    /// The build that `ticket` began has installed what it made, or given up.
    mutating func endBuild(_ ticket: UInt64) {
        guard let n = builds[ticket] else { preconditionFailure("a build ended twice") }
        builds[ticket] = n > 1 ? n - 1 : nil
    }

    /// Forgets every key of `list` (its definition changed: its partitions start again).
    mutating func removeAll(ofList list: String) {
        entries = entries.filter { $0.key.list != list }
    }

    /// Drops the entries every build in progress began after.
    private mutating func prune() {
        let oldest = builds.keys.min() ?? publishes
        entries = entries.filter { $0.value.published > oldest }
        pruneAt = max(Self.pruneSize, 2 * entries.count)
    }
}
