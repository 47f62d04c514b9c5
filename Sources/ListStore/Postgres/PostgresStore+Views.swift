/// Views in PostgreSQL: one row each, hidden keys as a JSON array of strings (as on SQLite).
extension PostgresStore {
    public func saveView(_ view: StoredView) throws(StoreError) {
        try writing { connection throws(PostgresError) in
            _ = try connection.execute("""
                INSERT INTO views (id, list, owner, hidden, last_used) VALUES ($1, $2, $3, $4, $5::bigint)
                ON CONFLICT (id) DO UPDATE SET list = excluded.list, owner = excluded.owner, hidden = excluded.hidden,
                                               last_used = excluded.last_used
                """, .text(view.id), .text(view.list), view.owner.map { .text($0) } ?? .null,
                .text(ViewKeys.encode(view.hidden)), .int(view.lastUsed))
        }
    }

    public func updateView(_ view: StoredView) throws(StoreError) -> Bool {
        try writing { connection throws(PostgresError) in
            try connection.execute("UPDATE views SET list = $1, owner = $2, hidden = $3, last_used = $4::bigint WHERE id = $5 RETURNING id",
                                   .text(view.list), view.owner.map { .text($0) } ?? .null, .text(ViewKeys.encode(view.hidden)),
                                   .int(view.lastUsed), .text(view.id)).rowCount > 0
        }
    }

    public func allViews() throws(StoreError) -> [StoredView] {
        try reading { connection throws(PostgresError) in
            let result = try connection.execute("SELECT id, list, owner, hidden, last_used FROM views ORDER BY id")
            var views: [StoredView] = []
            views.reserveCapacity(result.rowCount)
            for row in 0..<result.rowCount {
                views.append(StoredView(id: result.string(row, 0), list: result.string(row, 1), owner: result.optionalString(row, 2),
                                        hidden: ViewKeys.decode(result.string(row, 3)), lastUsed: try result.int(row, 4)))
            }
            return views
        }
    }

    public func deleteView(id: String) throws(StoreError) -> Bool {
        try writing { connection throws(PostgresError) in
            try connection.execute("DELETE FROM views WHERE id = $1 RETURNING id", .text(id)).rowCount > 0
        }
    }

    public func touchViews(_ ids: [String], at time: Int64) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try writing { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) in
                for id in ids {
                    try connection.execute("UPDATE views SET last_used = $1::bigint WHERE id = $2", .int(time), .text(id))
                }
            }
        }
    }

    public func deleteViews(ids: [String]) throws(StoreError) -> Int {
        guard !ids.isEmpty else { return 0 }
        return try writing { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) -> Int in
                var deleted = 0
                for id in ids {
                    deleted += try connection.execute("DELETE FROM views WHERE id = $1 RETURNING id", .text(id)).rowCount
                }
                return deleted
            }
        }
    }
}
