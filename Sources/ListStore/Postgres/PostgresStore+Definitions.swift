/// Run-time list definitions in PostgreSQL: one row per list, each change a commit of its own
/// that takes the next number of the one sequence (under the same row lock as record commits)
/// and is logged in `changes` under collection ``PostgresSchema/definitionsLog`` (id: the list,
/// json: the definition stored, null for a removal; a config reload: the empty id), so the
/// change log has no gap where it took its number, and an instance that reaches the change after
/// a later one of the list was stored still knows the definition it passed over.
extension PostgresStore {
    public func saveDefinition(list: String, json: [UInt8]?, expecting: DefinitionExpectation,
                               deliveries: DefinitionDeliveries?) throws(StoreError) -> DefinitionSave {
        try writing { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) -> DefinitionSave in
                let current = try connection.execute("SELECT value FROM state WHERE key = 'sequence' FOR UPDATE")
                guard current.rowCount == 1 else { throw PostgresError(sqlState: "XX000", message: "the sequence row is missing") }
                let old = try connection.execute("SELECT revision, json IS NOT NULL FROM definitions WHERE list = $1 FOR UPDATE",
                                                 .text(list))
                let revision = old.rowCount > 0 ? try old.int(0, 0) : 0
                let live = old.rowCount > 0 && old.string(0, 1) == "t"
                guard json != nil || live else { return .nothingToRemove }
                // Read under the sequence row's lock, which every change of every instance takes first.
                guard expecting.holds(live ? revision : nil) else { return .failed }
                let sequence = try current.int(0, 0) + 1
                try connection.execute("""
                    INSERT INTO definitions (list, json, revision, sequence) VALUES ($1, $2::json, $3::bigint, $4::bigint)
                    ON CONFLICT (list) DO UPDATE SET json = excluded.json, revision = excluded.revision, sequence = excluded.sequence
                    """, .text(list), json.map { .bytes($0) } ?? .null, .int(revision + 1), .int(sequence))
                try Self.logDefinition(list, json: json, sequence: sequence, on: connection)
                try connection.execute("UPDATE state SET value = $1::bigint WHERE key = 'sequence'", .int(sequence))
                try Self.record(deliveries.map { [$0] } ?? [], at: sequence, on: connection)
                return .saved(StoredDefinition(list: list, json: json, revision: revision + 1, sequence: sequence), replaced: live)
            }
        }
    }

    public func takeSequence(deliveries: [DefinitionDeliveries]) throws(StoreError) -> Int64 {
        try writing { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) -> Int64 in
                let result = try connection.execute("UPDATE state SET value = value + 1 WHERE key = 'sequence' RETURNING value")
                guard result.rowCount == 1 else { throw PostgresError(sqlState: "XX000", message: "the sequence row is missing") }
                let sequence = try result.int(0, 0)
                try Self.logDefinition("", json: nil, sequence: sequence, on: connection)
                try Self.record(deliveries, at: sequence, on: connection)
                return sequence
            }
        }
    }

    public func recordServed(_ served: [String: ServedDefinition]) throws(StoreError) {
        try writing { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) in
                for (list, definition) in served {
                    try connection.execute("""
                        INSERT INTO served (list, fingerprint, sequence) VALUES ($1, $2::bigint, $3::bigint)
                        ON CONFLICT (list) DO UPDATE SET fingerprint = excluded.fingerprint, sequence = excluded.sequence
                        """, .text(list), .int(Int64(bitPattern: definition.fingerprint)), .int(definition.sequence))
                }
            }
        }
    }

    /// In one transaction under the sequence row's lock, which every instance's changes take
    /// first: two instances starting at once with the same edited definition read what the other
    /// recorded (each took a number of its own before, and served the list at two versions).
    public func recordServedChange(_ fingerprints: [String: UInt64],
                                   deliveries: [DefinitionDeliveries]) throws(StoreError) -> [String: ServedDefinition] {
        try writing { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) -> [String: ServedDefinition] in
                let current = try connection.execute("SELECT value FROM state WHERE key = 'sequence' FOR UPDATE")
                guard current.rowCount == 1 else { throw PostgresError(sqlState: "XX000", message: "the sequence row is missing") }
                let rows = try connection.execute("SELECT list, fingerprint, sequence FROM served")
                var result: [String: ServedDefinition] = [:]
                for row in 0..<rows.rowCount {
                    let recorded = ServedDefinition(fingerprint: UInt64(bitPattern: try rows.int(row, 1)), sequence: try rows.int(row, 2))
                    if fingerprints[rows.string(row, 0)] == recorded.fingerprint { result[rows.string(row, 0)] = recorded }
                }
                let changed = fingerprints.filter { result[$0.key] == nil }
                guard !changed.isEmpty else { return result }
                let sequence = try current.int(0, 0) + 1
                try connection.execute("UPDATE state SET value = $1::bigint WHERE key = 'sequence'", .int(sequence))
                try Self.logDefinition("", json: nil, sequence: sequence, on: connection)
                for (list, fingerprint) in changed {
                    try connection.execute("""
                        INSERT INTO served (list, fingerprint, sequence) VALUES ($1, $2::bigint, $3::bigint)
                        ON CONFLICT (list) DO UPDATE SET fingerprint = excluded.fingerprint, sequence = excluded.sequence
                        """, .text(list), .int(Int64(bitPattern: fingerprint)), .int(sequence))
                    result[list] = ServedDefinition(fingerprint: fingerprint, sequence: sequence)
                }
                try Self.record(deliveries.filter { changed[$0.list] != nil }, at: sequence, on: connection)
                return result
            }
        }
    }

    public func servedDefinitions() throws(StoreError) -> [String: ServedDefinition] {
        try reading { connection throws(PostgresError) in
            let result = try connection.execute("SELECT list, fingerprint, sequence FROM served")
            var served: [String: ServedDefinition] = [:]
            for row in 0..<result.rowCount {
                served[result.string(row, 0)] = ServedDefinition(fingerprint: UInt64(bitPattern: try result.int(row, 1)),
                                                                 sequence: try result.int(row, 2))
            }
            return served
        }
    }

    public func allDefinitions() throws(StoreError) -> [StoredDefinition] {
        try reading { connection throws(PostgresError) in
            let result = try connection.execute("SELECT list, json, revision, sequence FROM definitions ORDER BY list")
            var definitions: [StoredDefinition] = []
            for row in 0..<result.rowCount {
                definitions.append(StoredDefinition(list: result.string(row, 0), json: result.optionalBytes(row, 1),
                                                    revision: try result.int(row, 2), sequence: try result.int(row, 3)))
            }
            return definitions
        }
    }

    /// Logs a definition change of `list` (the empty name: a config reload) to `json` (nil: removed) under `sequence`.
    private static func logDefinition(_ list: String, json: [UInt8]?, sequence: Int64,
                                      on connection: PostgresConnection) throws(PostgresError) {
        try connection.execute("INSERT INTO changes (sequence, position, collection, id, json) VALUES ($1::bigint, 0, $2, $3, $4::json)",
                               .int(sequence), .text(PostgresSchema.definitionsLog), .text(list), json.map { .bytes($0) } ?? .null)
        try notify(sequence, on: connection)
    }
}

extension PostgresSchema {
    /// The change log's collection for definition changes: not a valid collection name.
    public static let definitionsLog = "#definitions"
}
