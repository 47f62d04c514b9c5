/// A list's recent versions, so a batch update can be answered from any of them.
///
/// The log owns the diff's invariant: a batch update between two versions must be computed with
/// every id written between them. Each version enters the log as a ``ListEdit`` made from the
/// log's latest version, which recorded the ids of its own writes; ``changes(since:upTo:limit:)``
/// gathers them. No caller handles the ids.
///
/// Snapshots share their unchanged parts, so keeping one costs about what its writes touched.
/// The log keeps at most ``maxVersions`` versions and ``maxWrittenRows`` written ids in all,
/// whichever comes first (always the latest version); a version older than those kept answers
/// `nil` (the client reloads). A value: callers that share one guard it (e.g. with a lock).
public struct ListChangeLog: Sendable {
    /// One version: its snapshot and the ids written by the edit that made it.
    public struct Entry: Sendable {
        /// The version number (increasing along the log).
        public let version: Int64
        /// The list at that version.
        public let snapshot: ListSnapshot
        /// Ids written by the edit that made this version (none for the first).
        let writtenRowIDs: [String]
    }

    /// Most versions kept.
    public let maxVersions: Int
    /// Most written ids kept, summed over the versions kept.
    public let maxWrittenRows: Int
    /// Oldest first: the versions kept are `slots[first...]` (never empty); the slots before
    /// `first` held versions that fell out and hold nothing now. They are removed together once
    /// they are half the slots, so a version that falls out costs O(1) amortized. Removing each
    /// at once moved every version kept, each a snapshot's worth of fields: with 1,000 versions
    /// kept, a memmove of hundreds of KiB on every write, 7% of the writer thread's time under
    /// `make bench`'s mixed reads and writes (`perf`).
    private var slots: [Entry?]
    private var first = 0
    private var writtenRows = 0

    /// A log holding one version.
    public init(version: Int64, snapshot: ListSnapshot, maxVersions: Int = 1_000, maxWrittenRows: Int = 100_000) {
        slots = [Entry(version: version, snapshot: snapshot, writtenRowIDs: [])]
        self.maxVersions = max(1, maxVersions)
        self.maxWrittenRows = maxWrittenRows
    }

    /// The newest version.
    public var latest: Entry { entry(slots.count - 1) }

    /// The newest version's number, read in place (``latest`` copies the entry, retaining every
    /// part of its snapshot: about 1,000 instructions, asked several times a write). Callgrind,
    /// durable PUTs one at a time: `ListHistory.append` 8,385 → 5,289 instructions a write.
    public var latestVersion: Int64 { slots[slots.count - 1]!.version }

    /// Versions kept and the written ids they name.
    public var size: (versions: Int, writtenRows: Int) { (slots.count - first, writtenRows) }

    /// The kept version at slot `i` (`first <= i < slots.count`).
    private func entry(_ i: Int) -> Entry { slots[i]! }

    /// An edit starting from the latest version.
    public func edit() -> ListEdit { ListEdit(base: slots[slots.count - 1]!.snapshot, version: latestVersion) }

    /// Adds the version `version` that `edit` made; returns the versions that fell out of the
    /// log (oldest first), for the caller to free where it costs nothing (dropping a snapshot
    /// frees its unshared parts).
    ///
    /// - Precondition: `edit` started from the latest version (``edit()``), and `version` is
    ///   newer than it. An edit from an older version would lose the writes made since.
    @discardableResult
    public mutating func append(version: Int64, _ edit: ListEdit) -> [Entry] {
        precondition(edit.baseVersion == latestVersion, "edit from version \(edit.baseVersion), log at \(latestVersion)")
        precondition(version > latestVersion, "version \(version) not after \(latestVersion)")
        var written = edit.writtenRowIDs
        if writtenRows + written.count > maxWrittenRows {
            // About to drop versions for it: each id counts once (a batch that writes one record
            // thousands of times wrote one row; counted by its writes it dropped every version
            // before it). Only then, so an ordinary commit pays nothing for it.
            written = Array(Set(written))
        }
        slots.append(Entry(version: version, snapshot: edit.snapshot, writtenRowIDs: written))
        writtenRows += written.count
        var dropped: [Entry] = []
        while slots.count - first > 1, slots.count - first > maxVersions || writtenRows > maxWrittenRows {
            let gone = slots[first]!
            slots[first] = nil
            first += 1
            writtenRows -= gone.writtenRowIDs.count
            dropped.append(gone)
        }
        if first > 32 && first * 2 >= slots.count {
            slots.removeFirst(first)
            first = 0
        }
        return dropped
    }

    /// What changed from version `since` to version `target` (the latest when `nil`): the
    /// snapshots the log holds for them and the ids written in between. `nil` — answer with a
    /// reload — when `since` is older than the log, or more than `limit` distinct ids were
    /// written in between (that bounds the work; pass the answer's `maxChanges`, and a burst of
    /// writes that large answers reload even if few rows changed). A version between two kept
    /// ones resolves to the kept one before it.
    public func changes(since: Int64, upTo target: Int64? = nil, limit: Int) -> ListChangeSpan? {
        guard let b = lastIndex(atOrBefore: since) else { return nil }
        let t = target.map { v in lastIndex(atOrBefore: v) ?? b } ?? slots.count - 1
        var ids = Set<String>()
        if t > b {
            for i in (b + 1)...t {
                ids.formUnion(entry(i).writtenRowIDs)
                if ids.count > limit { return nil }
            }
        }
        return ListChangeSpan(base: entry(b), target: entry(max(b, t)), writtenRowIDs: ids)
    }

    /// The slot of the newest version at or before `version`, nil when every version kept is
    /// newer. A binary search (versions increase along the log): a scan read every entry, a cache
    /// line each, on every `changes` request that reloads.
    private func lastIndex(atOrBefore version: Int64) -> Int? {
        var lo = first, hi = slots.count   // the first slot newer than `version` is in lo...hi
        while lo < hi {
            let mid = (lo + hi) >> 1
            if entry(mid).version <= version { lo = mid + 1 } else { hi = mid }
        }
        return lo > first ? lo - 1 : nil
    }
}

/// Two versions of a list from a ``ListChangeLog`` and the ids written between them: all a
/// batch update needs.
public struct ListChangeSpan: Sendable {
    /// The earlier version.
    public let base: ListChangeLog.Entry
    /// The later version.
    public let target: ListChangeLog.Entry
    /// Every id written after `base` up to `target`.
    let writtenRowIDs: Set<String>

    /// The batch update from `base` to `target` through `view`, or `nil` when it would list
    /// more than `maxChanges` operations or the definition changed (see
    /// ``ListSnapshot/changes(from:changedRowIDs:view:maxChanges:)``).
    public func batchUpdate(view: ViewState, maxChanges: Int) -> BatchUpdate? {
        target.snapshot.changes(from: base.snapshot, changedRowIDs: writtenRowIDs, view: view, maxChanges: maxChanges)
    }
}
