import Dispatch
import ListModel
import Synchronization

/// Recent versions of one list, so `changes` can answer from any of them.
///
/// Snapshots share their unchanged parts, so keeping one costs about what its writes touched.
/// The history keeps at most ``maxVersions`` versions and ``maxChangedRows`` written rows in all,
/// whichever comes first; older versions fall out and a `since` from before them answers reload.
final class ListHistory: Sendable {
    static let maxVersions = 1_000
    static let maxChangedRows = 100_000

    struct Entry: Sendable {
        let version: Int64
        let snapshot: ListSnapshot
        /// Ids of the rows written by the commit that made this version.
        let changed: [String]
    }

    private struct State {
        var entries: [Entry] = []
        var changedRows = 0
    }

    private let state: Mutex<State>

    init(first: Entry) { state = Mutex(State(entries: [first], changedRows: first.changed.count)) }

    func append(_ entry: Entry) {
        let dropped = state.withLock { state -> [Entry] in
            state.entries.append(entry)
            state.changedRows += entry.changed.count
            var drop = 0
            while state.entries.count - drop > 1,
                  state.entries.count - drop > Self.maxVersions || state.changedRows > Self.maxChangedRows {
                state.changedRows -= state.entries[drop].changed.count
                drop += 1
            }
            let dropped = Array(state.entries[..<drop])
            if drop > 0 { state.entries.removeFirst(drop) }
            return dropped
        }
        // Freeing an old snapshot's unshared parts takes time; do it off the writer's path.
        guard !dropped.isEmpty else { return }
        Self.pending.add(dropped.count, ordering: .relaxed)
        Self.reaper.async {
            withExtendedLifetime(dropped) {}
            Self.pending.subtract(dropped.count, ordering: .relaxed)
        }
    }

    private static let reaper = DispatchQueue(label: "sectional.history.reaper", qos: .utility)
    private static let pending = Atomic<Int>(0)

    /// Versions dropped from every history and not yet freed by the reaper.
    static var pendingFrees: Int { pending.load(ordering: .relaxed) }

    /// Versions kept and the written row ids they name.
    var size: (versions: Int, rows: Int) { state.withLock { ($0.entries.count, $0.changedRows) } }

    /// What changed since `version`: the snapshot as it was then and the ids written after it,
    /// or nil when that version is older than the history kept.
    func since(_ version: Int64, limit: Int) -> (base: ListSnapshot, changed: Set<String>, truncated: Bool)? {
        state.withLock { state -> (ListSnapshot, Set<String>, Bool)? in
            guard let baseIndex = state.entries.lastIndex(where: { $0.version <= version }) else { return nil }
            var changed = Set<String>()
            for entry in state.entries[(baseIndex + 1)...] {
                changed.formUnion(entry.changed)
                if changed.count > limit { return (state.entries[baseIndex].snapshot, [], true) }
            }
            return (state.entries[baseIndex].snapshot, changed, false)
        }
    }

    /// The oldest version still answerable.
    var oldestVersion: Int64 { state.withLock { $0.entries.first?.version ?? 0 } }
}
