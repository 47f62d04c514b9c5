import Foundation
import ListModel
import ListStore
import Locking

/// Clients' per-list views (which sections they hide), kept in memory and persisted in the
/// store so they survive restarts. A view lives as long as it is used: each use moves its
/// last-used time, and views idle for longer than the TTL are deleted by ``expire()``.
///
/// Uses are recorded in memory and written to the store in batches (``flush()``), so a read
/// never waits for a disk write; only creating, changing and deleting a view do. Changes are
/// serialised from reading the view to storing it, so concurrent changes never lose one another
/// and a deleted view is never written back.
///
/// Bounded: a view hides at most ``maxHiddenKeys`` keys (``hiddenBytesLimit`` in all), and at
/// most `maxViews` views are kept, a view counting one per started 256 bytes of its hidden keys;
/// past that the least recently used are evicted (from memory and from the store) when a view is
/// created or hides one more key — never the view being written, which is refused instead when
/// it alone would pass the bound (so an answered view exists).
public final class ViewRegistry: Sendable {
    /// Most section keys one view may hide.
    public static let maxHiddenKeys = 1_024
    /// Most bytes (UTF-8) those keys may take in all.
    public static let maxHiddenBytes = 65_536

    public struct View: Sendable, Equatable {
        public let id: String
        public let list: String
        /// The user the view belongs to; nil for views of lists that are the same for everyone.
        public let owner: String?
        /// Hidden section keys, in the order they were hidden.
        public var hidden: [String]
        public var state: ViewState { ViewState(hidden: hidden) }
    }

    /// What a change of one section's hidden state did.
    public enum Change: Sendable, Equatable {
        case changed(View)
        /// No such view of this list (never was, deleted, or expired).
        case notFound
        /// Hiding one more key would pass ``maxHiddenKeys`` or ``hiddenBytesLimit``; nothing changed.
        case tooManyHiddenKeys
    }

    private struct Entry {
        var view: View
        /// Seconds since 1970, for expiry.
        var lastUsed: Int64
        /// Order of last use (finer than seconds), for eviction.
        var tick: UInt64
        var dirty: Bool
    }

    /// The views held by id, and their weight against `maxViews`: one per started 256 bytes of
    /// hidden keys (at least one), so the bound holds memory, not only a count — a view at the
    /// 64 KiB limit took about 130 kB (measured, RSS over 1,800 such views), where a usual one
    /// takes a few hundred bytes.
    private struct Entries {
        private(set) var byID: [String: Entry] = [:]
        private(set) var weight = 0

        subscript(id: String) -> Entry? {
            get { byID[id] }
            set {
                weight += (newValue.map(Self.weight) ?? 0) - (byID[id].map(Self.weight) ?? 0)
                byID[id] = newValue
            }
        }

        @discardableResult
        mutating func removeValue(forKey id: String) -> Entry? {
            defer { self[id] = nil }
            return byID[id]
        }

        var count: Int { byID.count }

        static func weight(_ entry: Entry) -> Int { max(1, (entry.view.hidden.reduce(0) { $0 + $1.utf8.count } + 255) / 256) }
    }

    private struct State {
        var entries = Entries()
        var tick: UInt64 = 0
        var evicted: UInt64 = 0
        /// Views changed elsewhere that could not be read again yet (see ``refresh(_:)``).
        var unread: Set<String> = []

        mutating func nextTick() -> UInt64 {
            tick += 1
            return tick
        }
    }

    private let store: RecordStore
    /// Whether other instances share the store (and its views).
    private let shared: Bool
    private let ttlSeconds: Int64
    private let maxViews: Int
    /// Most bytes (UTF-8) one view's hidden keys may take here: ``maxHiddenBytes``, or less when
    /// `maxViews` is below 256 — a view weighs one per started 256 bytes, and one heavier than
    /// the whole bound could only be kept by evicting itself.
    public let hiddenBytesLimit: Int
    private let clock: @Sendable () -> Int64
    private let state: Locked<State>
    /// Held by every change (create, hide/show, delete, expiry) from reading to storing.
    private let changes = Locked<Void>(())

    /// Loads the stored views (evicting the least recently used past `maxViews`). `clock` gives
    /// seconds since 1970 (injected so tests can move time).
    public init(store: RecordStore, ttlSeconds: Int, maxViews: Int = 1_000_000,
                clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) throws(StoreError) {
        self.store = store
        shared = store is ChangeLog
        self.ttlSeconds = Int64(ttlSeconds)
        self.maxViews = max(1, maxViews)
        hiddenBytesLimit = min(Self.maxHiddenBytes, self.maxViews * 256)
        self.clock = clock
        var loaded = State()
        for stored in try store.allViews().sorted(by: { ($0.lastUsed, $0.id) < ($1.lastUsed, $1.id) }) {
            loaded.entries[stored.id] = Entry(view: View(id: stored.id, list: stored.list, owner: stored.owner, hidden: stored.hidden),
                                              lastUsed: stored.lastUsed, tick: loaded.nextTick(), dirty: false)
        }
        let victims = Self.evict(&loaded, toFit: self.maxViews)
        state = Locked(loaded)
        _ = try store.deleteViews(ids: victims)
    }

    /// Views held now.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Views evicted to stay within `maxViews` since start.
    public var evictions: UInt64 { state.withLock { $0.evicted } }

    /// Creates a view of `list` for `owner` hiding `hidden` (repeats dropped), persisted before
    /// this returns; nil when that is more than ``maxHiddenKeys`` keys or ``hiddenBytesLimit``.
    /// Evicts the least recently used other views when the registry is full.
    public func create(list: String, owner: String? = nil, hidden: [String]) throws(StoreError) -> View? {
        let keys = Self.unique(hidden)
        guard fits(keys) else { return nil }
        let view = View(id: Self.newID(), list: list, owner: owner, hidden: keys)
        return try changes.withLock { _ throws(StoreError) -> View in
            let now = clock()
            try store.saveView(StoredView(id: view.id, list: list, owner: owner, hidden: view.hidden, lastUsed: now))
            let victims = state.withLock { state -> [String] in
                state.entries[view.id] = Entry(view: view, lastUsed: now, tick: state.nextTick(), dirty: false)
                return Self.evict(&state, toFit: maxViews, keeping: view.id)
            }
            Self.forget(victims, in: store)
            return view
        }
    }

    /// The view with this id if it belongs to `list` and `owner` and has not expired; records
    /// the use. Another user's view is nil, as if it did not exist. On a store other instances
    /// write too, a view not in memory is looked for in the store (made on another instance a
    /// moment ago, before the change log brought it here), and so is one whose last use here is
    /// past the time to live (used on other instances since: their uses are in the store, and a
    /// use is in no change log); a store that cannot answer then throws (the view may exist:
    /// `503`, not `404`).
    ///
    /// An id that could not be a view's (``isWellFormed(_:)``) is nil at once: it is neither
    /// looked up in memory, whose keys compare as Swift strings (U+212A KELVIN SIGN found the
    /// view whose id has `K`, and a delete then missed the stored row), nor sent to the store (a
    /// NUL was `500` on PostgreSQL). Every change of a view looks it up here first.
    public func use(_ id: String, list: String, owner: String? = nil) throws(StoreError) -> View? {
        guard Self.isWellFormed(id) else { return nil }
        if let view = useInMemory(id, list: list, owner: owner) { return view }
        let now = clock()
        guard shared, state.withLock({ state in state.entries[id].map { $0.lastUsed + ttlSeconds < now } ?? true }),
              let stored = try store.view(id: id) else { return nil }
        remember(stored)
        return useInMemory(id, list: list, owner: owner)
    }

    /// Reads the views `ids` again from the store, which another instance changed (or this one:
    /// the change log brings back every change): each is remembered as stored, or forgotten
    /// when deleted. Serialised with this instance's own changes, so none is undone.
    /// A view that could not be read (the store failed) is read again on the next call.
    public func refresh(_ ids: [String]) {
        changes.withLock { _ in
            let wanted = state.withLock { state -> Set<String> in
                defer { state.unread = [] }
                return state.unread.union(ids)
            }
            for id in wanted {
                let found: StoredView?
                do {
                    found = try store.view(id: id)
                } catch {
                    state.withLock { _ = $0.unread.insert(id) }
                    continue
                }
                guard let stored = found else {
                    state.withLock { _ = $0.entries.removeValue(forKey: id) }
                    continue
                }
                remember(stored)
            }
        }
    }

    /// Puts a stored view in memory (keeping a later use this instance saw).
    private func remember(_ stored: StoredView) {
        let victims = state.withLock { state -> [String] in
            let view = View(id: stored.id, list: stored.list, owner: stored.owner, hidden: stored.hidden)
            var entry = state.entries[stored.id] ?? Entry(view: view, lastUsed: stored.lastUsed, tick: state.nextTick(), dirty: false)
            entry.view = view
            entry.lastUsed = max(entry.lastUsed, stored.lastUsed)
            state.entries[stored.id] = entry
            return Self.evict(&state, toFit: maxViews, keeping: stored.id)
        }
        // Evicted from this instance's memory only: another instance may still be using them.
        _ = victims
    }

    private func useInMemory(_ id: String, list: String, owner: String?) -> View? {
        let now = clock()
        return state.withLock { state -> View? in
            guard var entry = state.entries[id], entry.view.list == list, entry.view.owner.map(CodePointKey.init) == owner.map(CodePointKey.init),
                  entry.lastUsed + ttlSeconds >= now else { return nil }
            entry.lastUsed = now
            entry.tick = state.nextTick()
            entry.dirty = true
            state.entries[id] = entry
            return entry.view
        }
    }

    /// Hides or shows section `key` of a view: `change` maps "hidden now" to "hidden next".
    /// Read, change and store happen under one lock; persisted before this returns. The store
    /// takes the change only if the view still hides what was read: on a store other instances
    /// change too, a lost race reads the view again from the store and applies the change to
    /// that, so two instances hiding two sections of one view at once keep both. A view that
    /// grows evicts the least recently used other views past `maxViews`, as a create does.
    public func setHidden(_ key: String, in id: String, list: String, owner: String? = nil,
                          change: (Bool) -> Bool) throws(StoreError) -> Change {
        try changes.withLock { _ throws(StoreError) -> Change in
            guard var view = try use(id, list: list, owner: owner) else { return .notFound }
            while true {
                let previous = view.hidden
                let keys = view.hidden.count
                view.hidden.removeAll { CodePointKey($0) == CodePointKey(key) }
                let hide = change(view.hidden.count < keys)
                if hide { view.hidden.append(key) }
                guard !hide || fits(view.hidden) else { return .tooManyHiddenKeys }
                let now = clock()
                if try store.updateView(StoredView(id: id, list: list, owner: owner, hidden: view.hidden, lastUsed: now), replacing: previous) {
                    let victims = state.withLock { state -> [String] in
                        state.entries[id] = Entry(view: view, lastUsed: now, tick: state.nextTick(), dirty: false)
                        return Self.evict(&state, toFit: maxViews, keeping: id)
                    }
                    Self.forget(victims, in: store)
                    return .changed(view)
                }
                // Deleted, or changed by another instance since it was read here: read it again.
                guard let stored = try store.view(id: id) else {
                    state.withLock { _ = $0.entries.removeValue(forKey: id) }
                    return .notFound
                }
                remember(stored)
                view = View(id: stored.id, list: stored.list, owner: stored.owner, hidden: stored.hidden)
            }
        }
    }

    /// Deletes views evicted by a change already saved: a store that refuses now (a storage
    /// fault) keeps them until the next start evicts them again — the change must not be
    /// answered `503` "nothing was changed" (a client sending it again made a second view).
    private static func forget(_ victims: [String], in store: RecordStore) {
        guard !victims.isEmpty else { return }
        _ = try? store.deleteViews(ids: victims)
    }

    /// Deletes a view; false when there was none for this list and owner.
    public func delete(_ id: String, list: String, owner: String? = nil) throws(StoreError) -> Bool {
        try changes.withLock { _ throws(StoreError) -> Bool in
            guard try use(id, list: list, owner: owner) != nil else { return false }
            // The store first: a delete it refuses (a storage fault) leaves the view in memory too.
            _ = try store.deleteView(id: id)
            state.withLock { _ = $0.entries.removeValue(forKey: id) }
            return true
        }
    }

    /// Writes the last-used times of views used since the last flush (an update of views that
    /// still exist: never a re-insert).
    public func flush() throws(StoreError) {
        let used = state.withLock { state -> [(String, Int64)] in
            var used: [(String, Int64)] = []
            for (id, entry) in state.entries.byID where entry.dirty {
                used.append((id, entry.lastUsed))
                state.entries[id]?.dirty = false
            }
            return used
        }
        guard let latest = used.map(\.1).max() else { return }
        do {
            try store.touchViews(used.map(\.0), at: latest)
        } catch {
            // Not written: kept for the next flush (a use lost here let an expiry after a restart
            // delete a view used within its time to live).
            state.withLock { state in used.forEach { state.entries[$0.0]?.dirty = true } }
            throw error
        }
    }

    /// Deletes views idle for longer than the TTL; returns how many.
    @discardableResult
    public func expire() throws(StoreError) -> Int {
        try changes.withLock { _ throws(StoreError) -> Int in
            try flush()
            let cutoff = clock() - ttlSeconds
            var old = state.withLock { state in state.entries.byID.filter { $0.value.lastUsed < cutoff }.map(\.key) }
            if shared {
                // Another instance may have used them since (its uses are in the store). A look-up
                // the store cannot answer ends the sweep, every view kept: taken for "not used",
                // it deleted views another instance was using.
                var used: [StoredView] = []
                for id in old {
                    if let stored = try store.view(id: id), stored.lastUsed >= cutoff { used.append(stored) }
                }
                used.forEach(remember)
                old.removeAll { id in used.contains { $0.id == id } }
            }
            old = state.withLock { state in
                // Not one used here meanwhile.
                let idle = old.filter { state.entries[$0].map { $0.lastUsed < cutoff } ?? false }
                idle.forEach { state.entries.removeValue(forKey: $0) }
                return idle
            }
            _ = try store.deleteViews(ids: old)
            return old.count
        }
    }

    /// Removes the least recently used entries until `limit` fit, plus 1% of `limit` more so a
    /// full registry sorts its views once per hundredth of its size, not once per create; never
    /// `kept` (the view just written, which weighs at most `limit`).
    /// Returns the removed ids (for the store).
    private static func evict(_ state: inout State, toFit limit: Int, keeping kept: String? = nil) -> [String] {
        guard state.entries.weight > limit else { return [] }
        let target = limit - limit / 100
        var victims: [String] = []
        for (id, _) in state.entries.byID.map({ (id: $0.key, tick: $0.value.tick) }).sorted(by: { $0.tick < $1.tick }) {
            guard state.entries.weight > target else { break }
            if id == kept { continue }
            state.entries.removeValue(forKey: id)
            victims.append(id)
        }
        state.evicted += UInt64(victims.count)
        return victims
    }

    /// Whether `id` could be a view's: base64url characters (those of ``newID()``'s 22), at
    /// most 64 of them.
    static func isWellFormed(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
        }
    }

    /// 128 random bits (at least 122 are asked for), base64url without padding: 22 characters.
    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        for _ in 0..<2 { withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) } }
        return Base64URL.encode(bytes)
    }

    /// Whether a view may hide these keys here.
    private func fits(_ keys: [String]) -> Bool {
        keys.count <= Self.maxHiddenKeys && keys.reduce(0) { $0 + $1.utf8.count } <= hiddenBytesLimit
    }

    /// The keys without repeats (by code points, as section keys compare).
    private static func unique(_ keys: [String]) -> [String] {
        var seen: Set<CodePointKey> = []
        return keys.filter { seen.insert(CodePointKey($0)).inserted }
    }
}
