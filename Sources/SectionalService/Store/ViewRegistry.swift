import Foundation
import ListModel
import ListStore
import Synchronization

/// Clients' per-list views (which sections they hide), kept in memory and persisted in the
/// store so they survive restarts. A view lives as long as it is used: each use moves its
/// last-used time, and views idle for longer than the TTL are deleted by ``expire(now:)``.
///
/// Uses are recorded in memory and written to the store in batches (``flush()``), so a read
/// never waits for a disk write; only creating, changing and deleting a view do.
public final class ViewRegistry: Sendable {
    public struct View: Sendable, Equatable {
        public let id: String
        public let list: String
        /// Hidden section keys, in the order they were hidden.
        public var hidden: [String]
        public var state: ViewState { ViewState(hidden: Set(hidden)) }
    }

    private struct Entry {
        var view: View
        var lastUsed: Int64
        var dirty: Bool
    }

    private let store: RecordStore
    private let ttlSeconds: Int64
    private let clock: @Sendable () -> Int64
    private let entries: Mutex<[String: Entry]>

    /// Loads the stored views. `clock` gives seconds since 1970 (injected so tests can move time).
    public init(store: RecordStore, ttlSeconds: Int, clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) })
        throws(StoreError) {
        self.store = store
        self.ttlSeconds = Int64(ttlSeconds)
        self.clock = clock
        var loaded: [String: Entry] = [:]
        for stored in try store.allViews() {
            loaded[stored.id] = Entry(view: View(id: stored.id, list: stored.list, hidden: stored.hidden),
                                      lastUsed: stored.lastUsed, dirty: false)
        }
        entries = Mutex(loaded)
    }

    /// Creates a view of `list` hiding `hidden`, persisted before this returns.
    public func create(list: String, hidden: [String]) throws(StoreError) -> View {
        let view = View(id: Self.newID(), list: list, hidden: Self.unique(hidden))
        let now = clock()
        try store.saveView(StoredView(id: view.id, list: list, hidden: view.hidden, lastUsed: now))
        entries.withLock { $0[view.id] = Entry(view: view, lastUsed: now, dirty: false) }
        return view
    }

    /// The view with this id if it belongs to `list` and has not expired; records the use.
    public func use(_ id: String, list: String) -> View? {
        let now = clock()
        return entries.withLock { entries -> View? in
            guard var entry = entries[id], entry.view.list == list, entry.lastUsed + ttlSeconds >= now else { return nil }
            entry.lastUsed = now
            entry.dirty = true
            entries[id] = entry
            return entry.view
        }
    }

    /// Hides or shows one section key in a view; persisted before this returns.
    public func setHidden(_ key: String, hidden: Bool, in id: String, list: String) throws(StoreError) -> View? {
        guard var view = use(id, list: list) else { return nil }
        view.hidden.removeAll { $0 == key }
        if hidden { view.hidden.append(key) }
        let now = clock()
        try store.saveView(StoredView(id: id, list: list, hidden: view.hidden, lastUsed: now))
        entries.withLock { $0[id] = Entry(view: view, lastUsed: now, dirty: false) }
        return view
    }

    /// Deletes a view; false when there was none for this list.
    public func delete(_ id: String, list: String) throws(StoreError) -> Bool {
        guard use(id, list: list) != nil else { return false }
        entries.withLock { _ = $0.removeValue(forKey: id) }
        return try store.deleteView(id: id)
    }

    /// Writes the last-used times of views used since the last flush.
    public func flush() throws(StoreError) {
        let used = entries.withLock { entries -> [(String, Int64)] in
            var used: [(String, Int64)] = []
            for (id, entry) in entries where entry.dirty {
                used.append((id, entry.lastUsed))
                entries[id]?.dirty = false
            }
            return used
        }
        guard let latest = used.map(\.1).max() else { return }
        try store.touchViews(used.map(\.0), at: latest)
    }

    /// Deletes views idle for longer than the TTL; returns how many.
    @discardableResult
    public func expire() throws(StoreError) -> Int {
        try flush()
        let cutoff = clock() - ttlSeconds
        let removed = entries.withLock { entries -> Int in
            let old = entries.filter { $0.value.lastUsed < cutoff }.map(\.key)
            old.forEach { entries.removeValue(forKey: $0) }
            return old.count
        }
        _ = try store.deleteViews(lastUsedBefore: cutoff)
        return removed
    }

    /// 128 random bits (≥ 122 as SPEC §4 asks), base64url without padding: 22 characters.
    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        for _ in 0..<2 { withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) } }
        return Base64URL.encode(bytes)
    }

    private static func unique(_ keys: [String]) -> [String] {
        var seen: Set<String> = []
        return keys.filter { seen.insert($0).inserted }
    }
}
