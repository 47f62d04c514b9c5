/// Run-time list definitions in SQLite: one row per list, written in its own commit.
extension SQLiteStore {
    public func saveDefinition(list: String, json: [UInt8]?, expecting: DefinitionExpectation,
                               deliveries: DefinitionDeliveries?) throws(StoreError) -> DefinitionSave {
        try writing { connection throws(StoreError) -> DefinitionSave in
            var revision: Int64 = 0
            var live = false
            try connection.query("SELECT revision, json IS NOT NULL FROM definitions WHERE list = ?", .text(list)) { row in
                revision = row.int(0)
                live = row.int(1) != 0
            }
            guard json != nil || live else { return .nothingToRemove }
            guard expecting.holds(live ? revision : nil) else { return .failed }
            try connection.query("SELECT value FROM state WHERE key = ?", .text(Self.revisionFloorKey)) { row in
                revision = max(revision, row.int(0))
            }
            let sequence = try Self.sequence(on: connection) + 1
            try connection.run("""
                INSERT INTO definitions (list, json, revision, sequence) VALUES (?, ?, ?, ?)
                ON CONFLICT (list) DO UPDATE SET json = excluded.json, revision = excluded.revision, sequence = excluded.sequence
                """, .text(list), json.map { .blob($0) } ?? .null, .int(revision + 1), .int(sequence))
            try connection.run("UPDATE state SET value = ? WHERE key = 'sequence'", .int(sequence))
            try Self.record(deliveries.map { [$0] } ?? [], at: sequence, on: connection)
            return .saved(StoredDefinition(list: list, json: json, revision: revision + 1, sequence: sequence), replaced: live)
        }
    }

    /// The `state` key of the number every run-time definition's next revision is above: set
    /// from the clock where the revisions an earlier store handed out may be lost (a restored
    /// copy, a new database beside a rescued one), so that no `"runtime-N"` a client kept names
    /// another definition (a `304` for it, or an `If-Match` taken for the one it saw).
    static let revisionFloorKey = "revisionFloor"

    /// Moves the store's change numbers and its definitions' next revisions past the clock
    /// (``ChangeNumbers/fromClock()``), where the numbers an earlier store handed out may be lost:
    /// a restored copy, a new database beside a rescued one.
    static func continueFromTheClock(_ connection: SQLiteConnection) throws(StoreError) {
        let now = ChangeNumbers.fromClock()
        try connection.run("UPDATE state SET value = max(value, ?) WHERE key = 'sequence'", .int(now))
        try connection.run("""
            INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = max(value, excluded.value)
            """, .text(revisionFloorKey), .int(now))
    }

    public func takeSequence(deliveries: [DefinitionDeliveries]) throws(StoreError) -> Int64 {
        try writing { connection throws(StoreError) -> Int64 in
            let sequence = try Self.sequence(on: connection) + 1
            try connection.run("UPDATE state SET value = ? WHERE key = 'sequence'", .int(sequence))
            try Self.record(deliveries, at: sequence, on: connection)
            return sequence
        }
    }

    public func recordServed(_ served: [String: ServedDefinition]) throws(StoreError) {
        try writing { connection throws(StoreError) in
            for (list, definition) in served {
                try connection.run("""
                    INSERT INTO served (list, fingerprint, sequence) VALUES (?, ?, ?)
                    ON CONFLICT (list) DO UPDATE SET fingerprint = excluded.fingerprint, sequence = excluded.sequence
                    """, .text(list), .int(Int64(bitPattern: definition.fingerprint)), .int(definition.sequence))
            }
        }
    }

    public func servedDefinitions() throws(StoreError) -> [String: ServedDefinition] {
        try reader.withLock { connection throws(StoreError) in
            var result: [String: ServedDefinition] = [:]
            try connection.query("SELECT list, fingerprint, sequence FROM served") { row throws(StoreError) in
                result[try row.text(0)] = ServedDefinition(fingerprint: UInt64(bitPattern: row.int(1)), sequence: row.int(2))
            }
            return result
        }
    }

    public func allDefinitions() throws(StoreError) -> [StoredDefinition] {
        try reader.withLock { connection throws(StoreError) in
            var result: [StoredDefinition] = []
            try connection.query("SELECT list, json, revision, sequence, json IS NULL FROM definitions ORDER BY list") { row throws(StoreError) in
                let json: [UInt8]? = row.int(4) != 0 ? nil : try row.blob(1)
                result.append(StoredDefinition(list: try row.text(0), json: json, revision: row.int(2), sequence: row.int(3)))
            }
            return result
        }
    }
}
