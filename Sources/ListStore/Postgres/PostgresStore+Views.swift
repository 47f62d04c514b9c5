/// Views in PostgreSQL: one row each, hidden keys as a JSON array of strings (as on SQLite).
///
/// Every change of a view (not a use: last-used times are only flushed) is also logged, under the
/// next version, as a change of collection ``PostgresSchema/viewsLog`` naming the view, in the
/// same transaction: other instances follow it as they follow record writes, and read the view
/// from this table.
///
/// Lock order, as a commit's: the sequence row (``lockSequence(on:)``) before any view row, and
/// view rows in the order of their ids' bytes. A change that took a view's row first and the
/// sequence row after it deadlocked with a save of the same view (which took them the other way
/// round), and a touch and a delete of the same views in opposite orders with each other:
/// PostgreSQL ended one of them, answered `503` as a passing fault.
extension PostgresStore {
    public func saveView(_ view: StoredView) throws(StoreError) {
        try writing { connection throws(PostgresError) in try connection.transaction { () throws(PostgresError) in
            try Self.logViews([view.id], on: connection)
            _ = try connection.execute("""
                INSERT INTO views (id, list, owner, hidden, last_used) VALUES ($1, $2, $3, $4, $5::bigint)
                ON CONFLICT (id) DO UPDATE SET list = excluded.list, owner = excluded.owner, hidden = excluded.hidden,
                                               last_used = excluded.last_used
                """, .text(view.id), .text(view.list), view.owner.map { .text(StoredText.encode($0)) } ?? .null,
                .text(ViewKeys.encode(view.hidden)), .int(view.lastUsed))
        } }
    }

    public func updateView(_ view: StoredView, replacing previous: [String]) throws(StoreError) -> Bool {
        try writing { connection throws(PostgresError) in try connection.transaction { () throws(PostgresError) -> Bool in
            try Self.lockSequence(on: connection)
            let updated = try connection.execute(
                "UPDATE views SET list = $1, owner = $2, hidden = $3, last_used = $4::bigint WHERE id = $5 AND hidden = $6 RETURNING id",
                .text(view.list), view.owner.map { .text(StoredText.encode($0)) } ?? .null, .text(ViewKeys.encode(view.hidden)),
                .int(view.lastUsed), .text(view.id), .text(ViewKeys.encode(previous))).rowCount > 0
            if updated { try Self.logViews([view.id], on: connection) }
            return updated
        } }
    }

    public func allViews() throws(StoreError) -> [StoredView] {
        try reading { connection throws(PostgresError) in
            let result = try connection.execute("SELECT id, list, owner, hidden, last_used FROM views ORDER BY id")
            var views: [StoredView] = []
            views.reserveCapacity(result.rowCount)
            for row in 0..<result.rowCount {
                views.append(StoredView(id: result.string(row, 0), list: result.string(row, 1), owner: result.optionalString(row, 2).map(StoredText.decode),
                                        hidden: ViewKeys.decode(result.string(row, 3)), lastUsed: try result.int(row, 4)))
            }
            return views
        }
    }

    public func deleteView(id: String) throws(StoreError) -> Bool {
        try writing { connection throws(PostgresError) in try connection.transaction { () throws(PostgresError) -> Bool in
            try Self.lockSequence(on: connection)
            let deleted = try connection.execute("DELETE FROM views WHERE id = $1 RETURNING id", .text(id)).rowCount > 0
            if deleted { try Self.logViews([id], on: connection) }
            return deleted
        } }
    }

    public func touchViews(_ ids: [String], at time: Int64) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try writing { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) in
                for id in Self.lockOrder(ids) {
                    try connection.execute("UPDATE views SET last_used = GREATEST(last_used, $1::bigint) WHERE id = $2", .int(time), .text(id))
                }
            }
        }
    }

    public func deleteViews(ids: [String]) throws(StoreError) -> Int {
        guard !ids.isEmpty else { return 0 }
        return try writing { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) -> Int in
                try Self.lockSequence(on: connection)
                var deleted: [String] = []
                for id in Self.lockOrder(ids) where try connection.execute("DELETE FROM views WHERE id = $1 RETURNING id", .text(id)).rowCount > 0 {
                    deleted.append(id)
                }
                if !deleted.isEmpty { try Self.logViews(deleted, on: connection) }
                return deleted.count
            }
        }
    }

    /// One view by id, or nil.
    public func view(id: String) throws(StoreError) -> StoredView? {
        try reading { connection throws(PostgresError) in
            let result = try connection.execute("SELECT id, list, owner, hidden, last_used FROM views WHERE id = $1", .text(id))
            guard result.rowCount > 0 else { return nil }
            return StoredView(id: result.string(0, 0), list: result.string(0, 1), owner: result.optionalString(0, 2).map(StoredText.decode),
                              hidden: ViewKeys.decode(result.string(0, 3)), lastUsed: try result.int(0, 4))
        }
    }

    /// Takes the sequence row (held until the transaction ends), as a commit does first.
    @discardableResult
    static func lockSequence(on connection: PostgresConnection) throws(PostgresError) -> PostgresResult {
        try connection.execute("SELECT value FROM state WHERE key = 'sequence' FOR UPDATE")
    }

    /// View ids in the order their rows are locked: by their bytes (one order for every
    /// transaction; Swift's `String` order holds two spellings of one text equal).
    static func lockOrder(_ ids: [String]) -> [String] {
        ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Logs changes of the views `ids` under the next version (in the caller's transaction),
    /// taking the sequence row lock as a commit of records does, and notifies.
    static func logViews(_ ids: [String], on connection: PostgresConnection) throws(PostgresError) {
        let current = try lockSequence(on: connection)
        guard current.rowCount == 1 else { throw PostgresError(sqlState: "XX000", message: "the sequence row is missing") }
        let sequence = try current.int(0, 0) + 1
        try connection.execute("""
            INSERT INTO changes (sequence, position, collection, id, json)
            SELECT $1::bigint, position, $2::text, id, NULL FROM unnest($3::text[]) WITH ORDINALITY AS v (id, position)
            """, .int(sequence), .text(PostgresSchema.viewsLog), PostgresArray.text(ids))
        try connection.execute("UPDATE state SET value = $1::bigint WHERE key = 'sequence'", .int(sequence))
        try notify(sequence, on: connection)
    }
}
