import ListModel
import Synchronization

/// The materializations in memory as readers see them: an immutable table that the
/// ``MaterializationCache``'s writer replaces whole (under the cache's lock) with every change,
/// numbered by a generation no other table in the process has. A reader takes the current
/// table without the lock (see ``ReaderSlot``) and looks its key up in it; what it finds is one
/// consistent ``ListState`` (a snapshot and its version), never half of a change.
///
/// Sharded by key so that a change copies only what it touches: the outer array and each
/// shard it edits (copy-on-write), not every resident entry — a write into one partition of
/// 10,000 resident ones copies about 160 entries, not 10,000.
final class ResidentTable: Sendable {
    static let shardCount = 64

    /// One materialization in memory.
    struct Entry: Sendable {
        let state: ListState
        let history: ListHistory
        let pinned: Bool
        /// When it was last read; the same object for every state the materialization takes.
        let recency: Recency
    }

    typealias Shards = [[MaterializationKey: Entry]]

    /// The entries of whole lists (``MaterializationKey/isWholeList``), also in ``shards``: a
    /// handful, which a read finds by comparing names instead of hashing its key for a shard's
    /// dictionary (a warm first page's look-up: 990 instructions, callgrind).
    typealias WholeLists = [(name: String, entry: Entry)]

    let generation: UInt64
    let shards: Shards
    let wholeLists: WholeLists

    init(generation: UInt64, shards: Shards, wholeLists: WholeLists) {
        self.generation = generation
        self.shards = shards
        self.wholeLists = wholeLists
    }

    static let empty = Shards(repeating: [:], count: shardCount)

    /// A key's shard. A key without a query (the one every warm read looks up) is placed by
    /// FNV-1a over its partition's text (else its list's name) and language, so it is hashed with
    /// `Hasher` once, by its shard's dictionary, not twice; a search result keeps `hashValue`,
    /// which spreads a list's many searches over the shards.
    static func shard(of key: MaterializationKey) -> Int {
        guard key.query == nil else { return key.hashValue & (shardCount - 1) }
        var hash = FNV1a()
        hash.combine(key.partition?.text ?? key.list)
        if let language = key.language { hash.combine(language) }
        // The top bits of a Fibonacci multiply: FNV-1a's low bits mix poorly.
        return Int(truncatingIfNeeded: (hash.value &* 0x9E37_79B9_7F4A_7C15) >> (64 - shardCount.trailingZeroBitCount))
    }

    func entry(_ key: MaterializationKey) -> Entry? {
        if key.isWholeList {
            for whole in wholeLists where whole.name == key.list { return whole.entry }
            return nil
        }
        return shards[Self.shard(of: key)][key]
    }

    /// Every entry, shard by shard.
    var entries: FlattenSequence<Shards> { shards.joined() }
}

/// The last read of one materialization, in ticks of its cache's read clock: written by readers
/// with relaxed atomics (no lock, and no write at all while it stays the most recently read),
/// read by eviction under the cache's lock. Eviction order is as exact as the reads it saw: two
/// reads on two threads at once may take their ticks in either order.
final class Recency: Sendable {
    let lastRead: Atomic<UInt64>

    init(_ tick: UInt64) { lastRead = Atomic(tick) }

    /// Marks a read at `clock`'s next tick, unless this is already the latest mark.
    func touch(_ clock: borrowing Atomic<UInt64>) {
        let last = lastRead.load(ordering: .relaxed)
        guard last != clock.load(ordering: .relaxed) else { return }
        lastRead.store(clock.wrappingAdd(1, ordering: .relaxed).newValue, ordering: .relaxed)
    }
}

/// A thread's weak reference to the ``ResidentTable`` it last read: while the cache's published
/// generation is that table's, the thread reads it without taking any lock; otherwise it takes
/// the current table once under the lock. Weak, so a table the writer replaced is freed when no
/// reader is using it at that moment (an idle thread keeps no old snapshot alive), and a reader
/// that finds it gone simply takes the current one.
///
/// Only its own thread touches a slot (a ``ThreadSlot``).
final class ReaderSlot {
    weak var table: ResidentTable?

    /// The calling thread's slot (made on its first read).
    static var current: ReaderSlot { slots.current }

    private static let slots = ThreadSlot { ReaderSlot() }
}
