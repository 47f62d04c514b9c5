import ListModel

/// The version of each value of a prepared field — a per-user partition's version — kept in the
/// database, so every instance's commits keep it: `prepared_fields` names the fields, and every
/// commit, under the sequence row lock, moves `field_versions` for the values its writes had
/// before and after.
extension PostgresStore {
    public var tracksFieldVersions: Bool { true }

    public func fieldVersion(_ field: FieldPath, in collection: String, key: ScalarKey) throws(StoreError) -> Int64? {
        try reading { connection throws(PostgresError) in
            let result = try connection.execute("SELECT sequence FROM field_versions WHERE collection = $1 AND field = $2 AND key = $3",
                                                .text(collection), .text(field.description), .text(Self.storedKey(key)))
            return result.rowCount > 0 ? try result.int(0, 0) : nil
        }
    }

    /// Names `field` as prepared the first time, counting the records already stored, each at the
    /// commit that last wrote it. The caller holds the sequence row lock, so no commit falls
    /// between the count and the naming.
    static func trackField(_ field: FieldPath, in collection: String, on connection: PostgresConnection) throws(PostgresError) {
        let named = try connection.execute("""
            INSERT INTO prepared_fields (collection, field) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING field
            """, .text(collection), .text(field.description))
        guard named.rowCount > 0 else { return }
        let records = try connection.execute("SELECT json, sequence FROM records WHERE collection = $1", .text(collection))
        var versions: [[CodePointKey]: Int64] = [:]
        for row in 0..<records.rowCount {
            guard let value = try? JSONParser.parse(records.bytes(row, 0)), let key = ScalarKey(field: field, of: value) else { continue }
            let sequence = try records.int(row, 1)
            let place = versionKey(collection, field, key)
            versions[place] = max(versions[place] ?? 0, sequence)
        }
        try store(versions, on: connection)
    }

    /// The prepared fields by collection; read by a commit after it took the sequence row lock.
    static func trackedFields(on connection: PostgresConnection) throws(PostgresError) -> [String: [FieldPath]] {
        let result = try connection.execute("SELECT collection, field FROM prepared_fields")
        var fields: [String: [FieldPath]] = [:]
        for row in 0..<result.rowCount {
            if let field = FieldPath(result.string(row, 1)) { fields[result.string(row, 0), default: []].append(field) }
        }
        return fields
    }

    /// Moves the versions of the values the committed writes had before (`previous`) and after.
    static func moveFieldVersions(_ groups: [[RecordWrite]], _ results: [CommitResult], fields: [String: [FieldPath]],
                                  on connection: PostgresConnection) throws(PostgresError) {
        guard !fields.isEmpty else { return }
        var versions: [[CodePointKey]: Int64] = [:]
        for (writes, result) in zip(groups, results) where result.changedAnything {
            for (index, write) in writes.enumerated() {
                guard let tracked = fields[write.targetCollection] else { continue }
                var values: [JSONValue] = []
                if let old = result.previous[index], let value = try? JSONParser.parse(old) { values.append(value) }
                if case .upsert(_, _, let json) = write, let value = try? JSONParser.parse(json) { values.append(value) }
                for field in tracked {
                    for value in values {
                        guard let key = ScalarKey(field: field, of: value) else { continue }
                        versions[versionKey(write.targetCollection, field, key)] = result.sequence
                    }
                }
            }
        }
        try store(versions, on: connection)
    }

    /// A `field_versions` row's key, compared by code points as the `COLLATE "C"` column is (two
    /// canonically equivalent but different values are two rows).
    private static func versionKey(_ collection: String, _ field: FieldPath, _ key: ScalarKey) -> [CodePointKey] {
        [CodePointKey(collection), CodePointKey(field.description), CodePointKey(storedKey(key))]
    }

    private static func store(_ versions: [[CodePointKey]: Int64], on connection: PostgresConnection) throws(PostgresError) {
        guard !versions.isEmpty else { return }
        let rows = Array(versions)
        try connection.execute("""
            INSERT INTO field_versions (collection, field, key, sequence)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])
            ON CONFLICT (collection, field, key) DO UPDATE SET sequence = excluded.sequence
            """, PostgresArray.text(rows.map { $0.key[0].string }), PostgresArray.text(rows.map { $0.key[1].string }),
            PostgresArray.text(rows.map { $0.key[2].string }), PostgresArray.int8(rows.map(\.value)))
    }

    /// A key as stored: PostgreSQL text cannot hold U+0000, so it becomes U+FFFD (two keys that
    /// then collide share a version, which only ever moves a partition's version forward).
    static func storedKey(_ key: ScalarKey) -> String {
        key.text.contains("\0") ? key.text.replacingOccurrences(of: "\0", with: "\u{FFFD}") : key.text
    }
}
