import ListModel

/// The common commit — groups of upserts, no record written twice (single writes grouped by the
/// writer, bulk loads) — as one statement for the whole commit instead of one per write: the
/// writes go as arrays, each group under its own number, and the answer names the records that
/// existed, with their old JSON where asked. Any other commit takes the statement-per-write path.
extension PostgresStore {
    /// The writes as `(collection, id, json)` when every write of every group is an upsert and no
    /// record is written twice; nil otherwise.
    static func distinctUpserts(_ groups: [[RecordWrite]]) -> [(collection: String, id: String, json: [UInt8])]? {
        var upserts: [(collection: String, id: String, json: [UInt8])] = []
        var seen: Set<[String]> = []
        for writes in groups {
            for write in writes {
                guard case .upsert(let collection, let id, let json) = write, seen.insert([collection, id]).inserted else { return nil }
                upserts.append((collection, id, json))
            }
        }
        return upserts
    }

    /// Most bytes of records one statement sends. PostgreSQL takes at most 1 GiB in a message (and
    /// in one value), and the writer commits every write queued at once: sixteen batches of 64 MiB
    /// coalesced would make one statement past it, and every write of them would fail. Larger
    /// commits are sent in several statements, in the same transaction.
    static let statementBytes = 32 << 20

    /// `upserts` cut into runs of at most ``statementBytes`` of JSON (a longer record alone).
    static func statementChunks(_ upserts: [(collection: String, id: String, json: [UInt8])]) -> [Range<Int>] {
        var chunks: [Range<Int>] = []
        var start = 0, bytes = 0
        for (index, upsert) in upserts.enumerated() {
            let size = upsert.json.count + upsert.id.utf8.count + upsert.collection.utf8.count
            if index > start && bytes + size > statementBytes {
                chunks.append(start..<index)
                start = index
                bytes = 0
            }
            bytes += size
        }
        if start < upserts.count { chunks.append(start..<upserts.count) }
        return chunks
    }

    /// Applies `upserts` (the writes of `groups`, in order), group `i` with writes under number
    /// `after + 1 + i` (an empty group takes none).
    func applyUpserts(_ groups: [[RecordWrite]], _ upserts: [(collection: String, id: String, json: [UInt8])], after first: Int64,
                      previousIn: Set<String>, on connection: PostgresConnection) throws(PostgresError) -> [CommitResult] {
        var sequences: [Int64] = []
        sequences.reserveCapacity(upserts.count)
        var next = first
        for writes in groups where !writes.isEmpty {
            next += 1
            sequences.append(contentsOf: repeatElement(next, count: writes.count))
        }
        var existed = [Bool](repeating: false, count: upserts.count)
        var previous = [[UInt8]?](repeating: nil, count: upserts.count)
        let named = PostgresArray.text(previousIn.sorted())
        for chunk in Self.statementChunks(upserts) {
            let old = try connection.execute("""
                WITH input AS (
                    SELECT collection, id, json, sequence, ordinal + $6::bigint AS position
                    FROM unnest($1::text[], $2::text[], $3::json[], $4::bigint[]) WITH ORDINALITY AS u (collection, id, json, sequence, ordinal)
                ), old AS (
                    SELECT w.position, CASE WHEN w.collection = ANY ($5::text[]) THEN r.json END AS json
                    FROM input w JOIN records r ON r.collection = w.collection AND r.id = w.id
                ), written AS (
                    INSERT INTO records (collection, id, json, sequence) SELECT collection, id, json, sequence FROM input
                    ON CONFLICT (collection, id) DO UPDATE SET json = excluded.json, sequence = excluded.sequence
                ), logged AS (
                    INSERT INTO changes (sequence, position, collection, id, json, previous)
                    SELECT w.sequence, w.position, w.collection, w.id, w.json, CASE WHEN w.collection = ANY ($5::text[]) THEN r.json END
                    FROM input w LEFT JOIN records r ON r.collection = w.collection AND r.id = w.id
                )
                SELECT position, json FROM old
                """, PostgresArray.text(upserts[chunk].map(\.collection)), PostgresArray.text(upserts[chunk].map(\.id)),
                PostgresArray.json(upserts[chunk].map(\.json)), PostgresArray.int8(Array(sequences[chunk])),
                named, .int(Int64(chunk.lowerBound)))
            for row in 0..<old.rowCount {
                let index = Int(try old.int(row, 0)) - 1
                guard chunk.contains(index) else {
                    throw PostgresError(sqlState: "XX000", message: "the server answered for write \(index + 1) of \(upserts.count)")
                }
                existed[index] = true
                previous[index] = old.optionalBytes(row, 1)
            }
        }
        var results: [CommitResult] = []
        results.reserveCapacity(groups.count)
        var start = 0
        var sequence = first
        for writes in groups {
            let range = start..<(start + writes.count)
            if !writes.isEmpty { sequence += 1 }
            results.append(CommitResult(sequence: sequence, existed: Array(existed[range]), changedAnything: !writes.isEmpty,
                                        previous: Array(previous[range])))
            start = range.upperBound
        }
        return results
    }
}

extension RecordWrite {
    /// The collection the write goes to.
    var targetCollection: String {
        switch self {
        case .upsert(let collection, _, _), .delete(let collection, _): collection
        }
    }
}
