import ListModel

/// Views in SQLite: one row each, hidden keys as a JSON array of strings (``ViewKeys``), written
/// through the write connection and read through the read one.
extension SQLiteStore {
    public func saveView(_ view: StoredView) throws(StoreError) {
        try writing { connection throws(StoreError) in
            _ = try connection.run("""
                INSERT INTO views (id, list, owner, hidden, last_used) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET list = excluded.list, owner = excluded.owner, hidden = excluded.hidden,
                                               last_used = excluded.last_used
                """, .text(view.id), .text(view.list), view.owner.map { .text($0) } ?? .null,
                .text(ViewKeys.encode(view.hidden)), .int(view.lastUsed))
        }
    }

    public func updateView(_ view: StoredView, replacing previous: [String]) throws(StoreError) -> Bool {
        try writing { connection throws(StoreError) in
            try connection.run("UPDATE views SET list = ?, owner = ?, hidden = ?, last_used = ? WHERE id = ? AND hidden = ?",
                               .text(view.list), view.owner.map { .text($0) } ?? .null, .text(ViewKeys.encode(view.hidden)),
                               .int(view.lastUsed), .text(view.id), .text(ViewKeys.encode(previous))) > 0
        }
    }

    public func allViews() throws(StoreError) -> [StoredView] {
        try reader.withLock { connection throws(StoreError) in
            var result: [StoredView] = []
            try connection.query("SELECT id, list, owner, hidden, last_used FROM views ORDER BY id") { row throws(StoreError) in
                result.append(StoredView(id: try row.text(0), list: try row.text(1), owner: try row.optionalText(2),
                                         hidden: ViewKeys.decode(try row.text(3)), lastUsed: row.int(4)))
            }
            return result
        }
    }

    public func deleteView(id: String) throws(StoreError) -> Bool {
        try writing { connection throws(StoreError) in
            try connection.run("DELETE FROM views WHERE id = ?", .text(id)) > 0
        }
    }

    public func touchViews(_ ids: [String], at time: Int64) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try writing { connection throws(StoreError) in
            for id in ids {
                try connection.run("UPDATE views SET last_used = MAX(last_used, ?) WHERE id = ?", .int(time), .text(id))
            }
        }
    }

    public func deleteViews(ids: [String]) throws(StoreError) -> Int {
        guard !ids.isEmpty else { return 0 }
        return try writing { connection throws(StoreError) -> Int in
            var deleted = 0
            for id in ids {
                deleted += try connection.run("DELETE FROM views WHERE id = ?", .text(id))
            }
            return deleted
        }
    }
}
