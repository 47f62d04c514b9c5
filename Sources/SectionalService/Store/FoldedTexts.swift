#if canImport(Glibc)
import Glibc
#endif

/// Many records' folded searchable texts in one contiguous buffer, so a search scans them all
/// with one byte search (`memchr` for the query's rarest byte, each occurrence checked whole)
/// instead of one loop per record.
///
/// Each owner (a small integer) has at most one segment: its text followed by a 0 byte. A text
/// written again is appended and its old segment left dead; when dead bytes outnumber live ones
/// the buffer is compacted, so it holds at most twice the live text and a write's share of the
/// compactions is O(its own bytes).
struct FoldedTexts: Sendable {
    /// The segments, in the order they were written.
    private var bytes: [UInt8] = []
    /// Where each segment starts (ascending).
    private var starts: [Int] = []
    /// Each segment's owner; -1 for a dead segment.
    private var owners: [Int] = []
    /// Each owner's segment; -1 for none.
    private var segmentOf: [Int] = []
    private var liveBytes = 0
    private var deadBytes = 0
    /// How often each byte value occurs in ``bytes`` (dead segments included: they are scanned).
    private var frequency = [Int](repeating: 0, count: 256)

    /// Sets the text of `owner` (nil: it has none).
    mutating func set(_ owner: Int, to text: [UInt8]?) {
        while segmentOf.count <= owner { segmentOf.append(-1) }
        let old = segmentOf[owner]
        if old >= 0 {
            owners[old] = -1
            let length = end(of: old) - starts[old]
            liveBytes -= length
            deadBytes += length
            segmentOf[owner] = -1
        }
        if let text {
            segmentOf[owner] = starts.count
            starts.append(bytes.count)
            owners.append(owner)
            bytes.append(contentsOf: text)
            bytes.append(0)
            for byte in text { frequency[Int(byte)] += 1 }
            frequency[0] += 1
            liveBytes += text.count + 1
        }
        if deadBytes > liveBytes && deadBytes >= 4096 { compact() }
    }

    /// Calls `body` once, in segment order, with each owner whose text contains `needle`.
    func forEachOwner(containing needle: [UInt8], _ body: (Int) -> Void) {
        let n = needle.count
        guard n > 0, bytes.count >= n else { return }
        var pivot = 0
        for j in 1..<n where frequency[Int(needle[j])] < frequency[Int(needle[pivot])] { pivot = j }
        bytes.withUnsafeBufferPointer { haystack in
            needle.withUnsafeBufferPointer { needle in
                guard let base = haystack.baseAddress, let wanted = needle.baseAddress else { return }
                let count = haystack.count, rare = Int32(needle[pivot])
                var from = pivot, segment = 0
                while from < count {
                    guard let found = memchr(base + from, rare, count - from) else { return }
                    let at = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
                    from = at + 1
                    let start = at - pivot
                    guard start >= 0, start + n <= count, base[start] == wanted[0], base[start + n - 1] == wanted[n - 1],
                          memcmp(base + start, wanted, n) == 0 else { continue }
                    segment = self.segment(containing: start, from: segment)
                    // Within the segment's text (not across its end into the next).
                    let last = end(of: segment) - 1
                    guard start + n <= last else { continue }
                    if owners[segment] >= 0 { body(owners[segment]) }
                    from = max(from, last + 1 + pivot)
                }
            }
        }
    }

    /// The segment that holds byte `offset`, searching from segment `low` on.
    private func segment(containing offset: Int, from low: Int) -> Int {
        var lo = low, hi = starts.count
        while hi - lo > 1 {
            let mid = (lo + hi) >> 1
            if starts[mid] <= offset { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// Where segment `segment` ends (its terminator included).
    private func end(of segment: Int) -> Int {
        segment + 1 < starts.count ? starts[segment + 1] : bytes.count
    }

    /// Keeps only the live segments, in order.
    private mutating func compact() {
        var kept: [UInt8] = [], keptStarts: [Int] = [], keptOwners: [Int] = []
        kept.reserveCapacity(liveBytes)
        frequency = [Int](repeating: 0, count: 256)
        for segment in starts.indices where owners[segment] >= 0 {
            segmentOf[owners[segment]] = keptStarts.count
            keptStarts.append(kept.count)
            keptOwners.append(owners[segment])
            kept.append(contentsOf: bytes[starts[segment]..<end(of: segment)])
        }
        for byte in kept { frequency[Int(byte)] += 1 }
        bytes = kept
        starts = keptStarts
        owners = keptOwners
        deadBytes = 0
    }
}
