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
        let old = try connection.execute("""
            WITH input AS (
                SELECT * FROM unnest($1::text[], $2::text[], $3::json[], $4::bigint[])
                    WITH ORDINALITY AS w (collection, id, json, sequence, position)
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
            """, PostgresArray.text(upserts.map(\.collection)), PostgresArray.text(upserts.map(\.id)),
            PostgresArray.json(upserts.map(\.json)), PostgresArray.int8(sequences), PostgresArray.text(previousIn.sorted()))
        var existed = [Bool](repeating: false, count: upserts.count)
        var previous = [[UInt8]?](repeating: nil, count: upserts.count)
        for row in 0..<old.rowCount {
            let index = Int(try old.int(row, 0)) - 1
            guard existed.indices.contains(index) else {
                throw PostgresError(sqlState: "XX000", message: "the server answered for write \(index + 1) of \(upserts.count)")
            }
            existed[index] = true
            previous[index] = old.optionalBytes(row, 1)
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
