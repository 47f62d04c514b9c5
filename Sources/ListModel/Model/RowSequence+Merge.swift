extension RowSequence {
    /// Removes the rows at `removed` (ascending row indices) and inserts `inserted` (already in
    /// `order`), in one pass over the chunk directory: chunks that lose and gain nothing are
    /// shared as they are; touched chunks are rebuilt from the merged rows (with their tag sums).
    /// Costs O(chunks + rows of touched chunks + inserted · log(chunk)) — no per-row search.
    ///
    /// An inserted row may compare equal only to a row that is removed in the same call (a
    /// replacement); otherwise rows are distinct in `order`.
    mutating func merge(removing removed: [Int], inserting inserted: ContiguousArray<Row>, order: RowOrder) {
        if removed.isEmpty && inserted.isEmpty { return }
        if chunks.isEmpty {
            precondition(removed.isEmpty, "removal from an empty sequence")
            self = RowSequence(sorted: inserted)
            return
        }
        var out: [RowChunk] = []
        out.reserveCapacity(chunks.count + inserted.count / RowSequence.buildChunk + 1)
        var pending = ContiguousArray<Row>()
        pending.reserveCapacity(2 * RowSequence.maxChunk)

        /// Cuts `pending` into chunks of about `buildChunk` rows (all of it, or all but a tail
        /// shorter than `buildChunk` when `keepTail`).
        func emit(keepTail: Bool) {
            let n = pending.count
            guard n > 0 else { return }
            if keepTail {
                guard n >= 2 * RowSequence.buildChunk else { return }
                var s = 0
                while n - s >= 2 * RowSequence.buildChunk {
                    out.append(RowChunk(ContiguousArray(pending[s..<(s + RowSequence.buildChunk)])))
                    s += RowSequence.buildChunk
                }
                pending.removeSubrange(0..<s)
                return
            }
            if n <= RowSequence.maxChunk {
                out.append(RowChunk(pending))
            } else {
                let pieces = (n + RowSequence.buildChunk - 1) / RowSequence.buildChunk
                var s = 0
                for p in 0..<pieces {
                    let e = n * (p + 1) / pieces
                    out.append(RowChunk(ContiguousArray(pending[s..<e])))
                    s = e
                }
            }
            pending.removeAll(keepingCapacity: true)
        }

        var ri = 0, ii = 0, start = 0
        let last = chunks.count - 1
        for k in 0...last {
            let c = chunks[k]
            let n = c.rows.count
            let end = start + n
            // Inserted rows ordered before the next chunk's first row land in this chunk.
            var iEnd = ii
            if k == last {
                iEnd = inserted.count
            } else {
                let next = chunks[k + 1].rows[0]
                while iEnd < inserted.count,
                      order.compare(inserted[iEnd].sortKey, inserted[iEnd].id, next.sortKey, next.id) < 0 { iEnd += 1 }
            }
            var rEnd = ri
            while rEnd < removed.count && removed[rEnd] < end { rEnd += 1 }
            if iEnd == ii && rEnd == ri {
                if !pending.isEmpty {
                    if pending.count < RowSequence.maxChunk / 8 && pending.count + n <= RowSequence.buildChunk {
                        pending.append(contentsOf: c.rows)   // absorb: no tiny chunk left behind
                        start = end
                        continue
                    }
                    emit(keepTail: false)
                }
                out.append(c)
            } else {
                var j = 0, ins = ii, rem = ri
                while j < n || ins < iEnd {
                    if j < n && rem < rEnd && removed[rem] == start + j {
                        rem += 1; j += 1
                        continue
                    }
                    if ins < iEnd && (j == n || order.compare(inserted[ins].sortKey, inserted[ins].id, c.rows[j].sortKey, c.rows[j].id) < 0) {
                        pending.append(inserted[ins]); ins += 1
                    } else {
                        pending.append(c.rows[j]); j += 1
                    }
                }
                precondition(rem == rEnd, "removed index out of range")
                ii = iEnd
                ri = rEnd
                emit(keepTail: true)
            }
            start = end
        }
        precondition(ri == removed.count, "removed index out of range")
        emit(keepTail: false)
        replaceChunks(out)
    }
}
