/// The change log in PostgreSQL: every committed write, in version order, read by the other
/// instances to follow this one (see ``PostgresChangeListener``).
extension PostgresStore {
    /// The change log after `sequence`, in version order: whole commits only, as many as fit in
    /// `limit` writes — but always at least the next commit, however many writes it made, so a
    /// reader that applies the answer and asks again from its last sequence always progresses.
    /// Empty when nothing was committed after `sequence`. The log keeps the last 100,000 commits;
    /// a reader further behind reloads the records instead.
    public func changes(after sequence: Int64, limit: Int) throws(StoreError) -> [LoggedChange] {
        let limit = max(1, min(limit, Int(Int32.max) - 1))
        return try reading { connection throws(PostgresError) in
            // One row past the limit tells whether the last commit read is whole.
            var changes = try Self.changes(try connection.execute("""
                SELECT sequence, collection, id, json, previous FROM changes WHERE sequence > $1::bigint
                ORDER BY sequence, position LIMIT $2::bigint
                """, .int(sequence), .int(Int64(limit + 1))))
            guard changes.count > limit, let cut = changes.last?.sequence else { return changes }
            changes.removeAll { $0.sequence == cut }
            guard changes.isEmpty else { return changes }
            // The next commit alone is larger than the limit: it comes whole all the same.
            return try Self.changes(try connection.execute(
                "SELECT sequence, collection, id, json, previous FROM changes WHERE sequence = $1::bigint ORDER BY position", .int(cut)))
        }
    }

    /// `NOTIFY` of the followers' channel with the last version committed.
    static func notify(_ sequence: Int64, on connection: PostgresConnection) throws(PostgresError) {
        try connection.execute("SELECT pg_notify('\(PostgresChangeListener.channel)', $1::text)", .text(String(sequence)))
    }

    /// The lowest version the change log still holds, or nil when it is empty.
    public func oldestLoggedChange() throws(StoreError) -> Int64? {
        try reading { connection throws(PostgresError) in
            let result = try connection.execute("SELECT min(sequence) FROM changes")
            return result.rowCount > 0 && !result.isNull(0, 0) ? try result.int(0, 0) : nil
        }
    }

    private static func changes(_ result: PostgresResult) throws(PostgresError) -> [LoggedChange] {
        var changes: [LoggedChange] = []
        changes.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount {
            changes.append(LoggedChange(sequence: try result.int(row, 0), collection: result.string(row, 1),
                                        id: result.string(row, 2), json: result.optionalBytes(row, 3),
                                        previous: result.optionalBytes(row, 4)))
        }
        return changes
    }
}
