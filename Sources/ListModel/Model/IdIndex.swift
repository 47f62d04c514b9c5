/// One section spec's claim on a row id (uniqueness): the spec and the row it would
/// show. The claim of the lowest spec index owns the id; the others are counted duplicates.
struct Claim: Sendable {
    let spec: Int
    let row: Row
}

/// All claims on one id, ordered by spec index (almost always exactly one).
///
/// The common single-claim case holds its row *unretained*: copying an index shard then copies
/// plain words instead of retaining hundreds of rows scattered in memory (one cache miss each).
/// This is sound because a single claim is always the owner, and the owner's row is always held
/// (strongly) by a `RowChunk` of the same snapshot (or by the definition, for literal rows); the
/// entry never outlives that snapshot. Entries with several claims hold them strongly, since the
/// non-owning rows are not in any chunk.
enum IdEntry: Sendable {
    case one(spec: Int, row: Unmanaged<Row>)
    case many([Claim])

    /// The entry of a single claim.
    init(single c: Claim) { self = .one(spec: c.spec, row: Unmanaged.passUnretained(c.row)) }

    init?(_ claims: [Claim]) {
        switch claims.count {
        case 0: return nil
        case 1: self = .one(spec: claims[0].spec, row: Unmanaged.passUnretained(claims[0].row))
        default: self = .many(claims)
        }
    }

    var claims: [Claim] {
        switch self {
        case .one(let spec, let row): return [Claim(spec: spec, row: row.takeUnretainedValue())]
        case .many(let cs): return cs
        }
    }

    var owner: Claim {
        switch self {
        case .one(let spec, let row): return Claim(spec: spec, row: row.takeUnretainedValue())
        case .many(let cs): return cs[0]
        }
    }

    var count: Int {
        switch self {
        case .one: return 1
        case .many(let cs): return cs.count
        }
    }
}


/// A persistent hash index from row id to its claims.
///
/// 64 nodes of small dictionaries (shards) reached through two copy-on-write levels: an update
/// copies the top directory (64 references), one node (its shards' references) and one shard,
/// never the whole index. While it holds at most ``smallLimit`` ids (a user's partition, a
/// small search result) it is one dictionary instead: building those directories and thousands
/// of dictionaries for a hundred ids cost more than the hundred rows' index itself.
///
/// The shard count grows with the index (``shardBits``), keeping about ``shardTarget`` ids in
/// a shard: a batch of k writes into n ids copies every node it touches and about min(k, shards)
/// shards of n / shards ids each, so the copy is smallest with shards of a few dozen ids. With
/// the 4,096 shards of a fixed layout, importing 1,000,000 records in batches of 2,500 copied
/// some 500,000 entries a batch by the end, plus the fresh pages they were copied into: 18% of
/// the import's samples (`perf record` of `make bench-service`'s import).
struct IdIndex: Sendable {
    final class Node: @unchecked Sendable {
        var shards: [[String: IdEntry]]
        init(shards count: Int) { shards = Array(repeating: [:], count: count) }
        init(copying n: Node) { shards = n.shards }
    }

    /// Most ids held in one dictionary. Measured (callgrind, `make bench-peruser`'s partitions
    /// of 100 rows): the small form took 5% off a cold partition's first page, and a write into
    /// a resident partition — which copies the whole dictionary instead of a directory, a node
    /// and a shard — was no dearer at this size.
    static let smallLimit = 128

    /// The average ids per shard the sharded form grows at (doubling its shards).
    static let shardTarget = 32

    /// The sharded form; empty while the index is small.
    private var nodes: [Node] = []
    /// Shards per node: `1 << shardBits` (at least 64).
    private var shardBits = 6
    /// The small form.
    private var small: [String: IdEntry] = [:]
    private(set) var count = 0

    init() {}

    /// Node and shard of `id` with `bits` shard bits: the hash's low 6 bits pick the node, the
    /// next `bits` the shard (so doubling the shards splits each in two, within its node).
    @inline(__always)
    private static func slot(_ id: String, bits: Int) -> (Int, Int) {
        let h = FNV1a.hash(id)
        let m = h ^ (h >> 29)
        return (Int(m & 63), Int((m >> 6) & ((1 << UInt64(bits)) - 1)))
    }

    subscript(id: String) -> IdEntry? {
        if nodes.isEmpty { return small[id] }
        let (a, b) = IdIndex.slot(id, bits: shardBits)
        return nodes[a].shards[b][id]
    }

    /// Sets or removes (`nil`) the entry of `id`.
    mutating func set(_ id: String, _ entry: IdEntry?) {
        let old: IdEntry?
        if nodes.isEmpty {
            if let entry { old = small.updateValue(entry, forKey: id) } else { old = small.removeValue(forKey: id) }
        } else {
            let (a, b) = IdIndex.slot(id, bits: shardBits)
            if !isKnownUniquelyReferenced(&nodes[a]) { nodes[a] = Node(copying: nodes[a]) }
            if let entry { old = nodes[a].shards[b].updateValue(entry, forKey: id) } else { old = nodes[a].shards[b].removeValue(forKey: id) }
        }
        if old == nil && entry != nil { count += 1 } else if old != nil && entry == nil { count -= 1 }
        grow()
    }

    /// Sets the entry of `id` in one hash look-up and returns the entry it replaced (the
    /// caller restores or merges it in the rare case there was one).
    mutating func replace(_ id: String, with entry: IdEntry) -> IdEntry? {
        let old: IdEntry?
        if nodes.isEmpty {
            old = small.updateValue(entry, forKey: id)
        } else {
            let (a, b) = IdIndex.slot(id, bits: shardBits)
            if !isKnownUniquelyReferenced(&nodes[a]) { nodes[a] = Node(copying: nodes[a]) }
            old = nodes[a].shards[b].updateValue(entry, forKey: id)
        }
        if old == nil { count += 1 }
        grow()
        return old
    }

    /// Shard bits for `n` ids: at most ``shardTarget`` ids a shard on average, at least 64
    /// shards a node.
    private static func bits(for n: Int) -> Int {
        var bits = 6
        while n > (64 << bits) * shardTarget { bits += 1 }
        return bits
    }

    /// Moves to the sharded form past ``smallLimit`` ids, and doubles the shards past
    /// ``shardTarget`` ids a shard (each id moved once; amortized over the ids added since).
    @inline(__always)
    private mutating func grow() {
        if nodes.isEmpty {
            if count > Self.smallLimit { reshard(bits: Self.bits(for: count)) }
        } else if count > (64 << shardBits) * Self.shardTarget {
            reshard(bits: Self.bits(for: count))
        }
    }

    /// Claims of at least this many rows are made on several threads by
    /// ``claim(_:spec:parallelism:)`` (below it, starting them costs more than it saves).
    static let parallelClaims = 16_384

    /// Claims the id of every row of `parts` for section spec `spec`, in order (parts in order,
    /// rows in order within a part), as one claim after another would: a new id is owned by its
    /// row; an id already claimed by the same spec keeps its first claim (nothing is counted); an
    /// id claimed by an earlier spec gains the claim as a duplicate. Returns, per part, which rows
    /// own their id, and the duplicates counted.
    ///
    /// Many rows are claimed on several threads: ids never move between the 64 nodes, so each
    /// thread takes every row of its own nodes, in order, and no two touch the same dictionary.
    /// Measured with `make bench`'s cold start (1,000,000 records, 2 cores): claiming was 0.5 s
    /// on one thread, the longest part of a build that does not run on every core.
    mutating func claim(_ parts: [ContiguousArray<Row>], spec: Int, parallelism: Parallelism) -> (owned: [[Bool]], duplicates: Int) {
        let total = parts.reduce(0) { $0 + $1.count }
        var owned = parts.map { [Bool](repeating: true, count: $0.count) }
        let needed = Self.bits(for: count + total)
        if count + total > Self.smallLimit && (nodes.isEmpty || needed > shardBits) { reshard(bits: needed) }
        guard !nodes.isEmpty && total >= Self.parallelClaims else {
            var duplicates = 0
            for p in parts.indices {
                for i in parts[p].indices {
                    let row = parts[p][i]
                    guard let old = replace(row.id, with: IdEntry(single: Claim(spec: spec, row: row))) else { continue }
                    owned[p][i] = false
                    var entry: IdEntry?
                    if Self.merge(old, Claim(spec: spec, row: row), into: &entry) { duplicates += 1 }
                    set(row.id, entry)
                }
            }
            return (owned, duplicates)
        }
        for a in nodes.indices where !isKnownUniquelyReferenced(&nodes[a]) { nodes[a] = Node(copying: nodes[a]) }
        let nodes = self.nodes, bits = shardBits
        // Each row's node and shard, found once.
        let slots = parallelism.map(parts.count) { p in
            parts[p].map { row -> UInt32 in
                let (a, b) = IdIndex.slot(row.id, bits: bits)
                return UInt32(b << 6 | a)
            }
        }
        let groups = 8
        let results = parallelism.map(groups) { g -> (taken: [(part: Int, row: Int)], added: Int, duplicates: Int) in
            var taken: [(part: Int, row: Int)] = []
            var added = 0, duplicates = 0
            for p in parts.indices {
                let rows = parts[p], places = slots[p]
                for i in rows.indices where Int(places[i] & 63) % groups == g {
                    let row = rows[i]
                    let node = nodes[Int(places[i] & 63)], b = Int(places[i] >> 6)
                    guard let old = node.shards[b].updateValue(IdEntry(single: Claim(spec: spec, row: row)), forKey: row.id) else {
                        added += 1
                        continue
                    }
                    taken.append((p, i))
                    if IdIndex.merge(old, Claim(spec: spec, row: row), into: &node.shards[b][row.id]) { duplicates += 1 }
                }
            }
            return (taken, added, duplicates)
        }
        var duplicates = 0
        for r in results {
            count += r.added
            duplicates += r.duplicates
            for t in r.taken { owned[t.part][t.row] = false }
        }
        return (owned, duplicates)
    }

    /// Batches of at least this many ids are updated on several threads by
    /// ``update(_:parallelism:_:)``, and a bulk write's rows and sections are made and edited on
    /// several threads (``ListSnapshot/apply(_:collection:parallelism:)``); smaller batches stay on
    /// the calling thread. Measured with `sectional-bench batch` (2 cores): batches of 1,024 into
    /// 300,000 rows import at 167,730 records/s with `--cores` against 100,688 on one thread;
    /// batches of 2,500 into 1,000,000 rows at 132,779–153,598 against 89,716–92,193.
    static let parallelUpdates = 1_024

    /// Sets the entry of each of `ids` (distinct) to what `body(i, old)` returns for `ids[i]`
    /// and its entry before (`nil`: removed), and returns the values `body` returns with it, in
    /// the order of `ids`. `body` runs once per id and must depend only on its arguments.
    ///
    /// A large batch runs on several threads, as ``claim(_:spec:parallelism:)`` does: ids never
    /// move between the 64 nodes, so each part takes the ids of its own nodes, and no two parts
    /// touch the same dictionary. The shards are grown first for every id being new, as if the
    /// batch added them all (a batch that mostly replaces ids may grow them a little early).
    mutating func update<T: Sendable>(_ ids: [String], parallelism: Parallelism,
                                      _ body: @Sendable (Int, IdEntry?) -> (IdEntry?, T)) -> [T] {
        let needed = Self.bits(for: count + ids.count)
        guard ids.count >= Self.parallelUpdates, count + ids.count > Self.smallLimit else {
            return ids.indices.map { i in
                let (entry, value) = body(i, self[ids[i]])
                set(ids[i], entry)
                return value
            }
        }
        if nodes.isEmpty || needed > shardBits { reshard(bits: needed) }
        for a in nodes.indices where !isKnownUniquelyReferenced(&nodes[a]) { nodes[a] = Node(copying: nodes[a]) }
        let nodes = self.nodes, bits = shardBits
        let slots = ids.map { id -> UInt32 in
            let (a, b) = IdIndex.slot(id, bits: bits)
            return UInt32(b << 6 | a)
        }
        let groups = 8
        let parts = parallelism.map(groups) { g -> (values: [(Int, T)], added: Int) in
            var values: [(Int, T)] = []
            values.reserveCapacity(ids.count / groups + 16)
            var added = 0
            for i in ids.indices where Int(slots[i] & 63) % groups == g {
                let node = nodes[Int(slots[i] & 63)], b = Int(slots[i] >> 6)
                let (entry, value) = body(i, node.shards[b][ids[i]])
                let old: IdEntry?
                if let entry { old = node.shards[b].updateValue(entry, forKey: ids[i]) } else { old = node.shards[b].removeValue(forKey: ids[i]) }
                if old == nil && entry != nil { added += 1 } else if old != nil && entry == nil { added -= 1 }
                values.append((i, value))
            }
            return (values, added)
        }
        var out = [T?](repeating: nil, count: ids.count)
        for part in parts {
            count += part.added
            for (i, value) in part.values { out[i] = value }
        }
        return out.map { $0! }
    }

    /// The entry of an id claimed before (`old`) and now by `c`: the first claim stays when both
    /// are of the same spec; otherwise `c` is added after the others. Returns whether `c` was
    /// added (a duplicate).
    private static func merge(_ old: IdEntry, _ c: Claim, into entry: inout IdEntry?) -> Bool {
        var claims = old.claims
        guard claims.last!.spec != c.spec else {   // the same collection twice: keep the first
            entry = old
            return false
        }
        claims.append(c)
        entry = IdEntry(claims)
        return true
    }

    /// Reserves room for about `n` ids in total, a node per part of `parallelism`: for
    /// 1,000,000 ids that is 32,768 tables allocated, a tenth of a second of start-up on one core.
    mutating func reserve(_ n: Int, parallelism: Parallelism = .serial) {
        if nodes.isEmpty {
            guard n > Self.smallLimit else { return small.reserveCapacity(n) }
        }
        let bits = Self.bits(for: n)
        if nodes.isEmpty || bits > shardBits { reshard(bits: bits) }
        let per = n / (64 << shardBits) + 1
        guard per > 4 else { return }
        for a in nodes.indices where !isKnownUniquelyReferenced(&nodes[a]) { nodes[a] = Node(copying: nodes[a]) }
        let nodes = self.nodes
        // Each part changes its own nodes only.
        _ = parallelism.map(nodes.count) { a in
            for b in nodes[a].shards.indices { nodes[a].shards[b].reserveCapacity(per + per / 4) }
        }
    }

    /// Moves every id into a sharded form of `1 << bits` shards a node (for good: an index that
    /// grew past ``smallLimit`` stays sharded, and its shards never halve).
    private mutating func reshard(bits: Int) {
        let new = (0..<64).map { _ in Node(shards: 1 << bits) }
        func move(_ id: String, _ entry: IdEntry) {
            let (a, b) = IdIndex.slot(id, bits: bits)
            new[a].shards[b][id] = entry
        }
        if nodes.isEmpty {
            for (id, entry) in small { move(id, entry) }
            small = [:]
        } else {
            for node in nodes { for shard in node.shards { for (id, entry) in shard { move(id, entry) } } }
        }
        nodes = new
        shardBits = bits
    }
}
