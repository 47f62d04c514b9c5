/// The webhook outbox in SQLite: rows written by commits (in their transaction), claimed,
/// released and removed by the delivery worker through the write connection.
extension SQLiteStore {
    /// Adds a delivery to the outbox, or moves its row to the later version (keeping its retry
    /// time: a receiver that is down is not asked sooner because more changes came; and its
    /// `pending_since`, its place in the claim order).
    static func record(_ request: DeliveryRequest, on connection: SQLiteConnection) throws(StoreError) {
        try connection.run("""
            INSERT INTO outbox (webhook, list, partition_key, user_json, version, pending_since) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (webhook, list, partition_key) DO UPDATE SET version = max(version, excluded.version),
                                                                     user_json = excluded.user_json
            """, .text(request.webhook), .text(request.list), .text(request.partition),
            request.user.map { .text($0) } ?? .null, .int(request.version), .int(request.version))
    }

    /// Records the deliveries of a change of definitions at its number `sequence`.
    static func record(_ deliveries: [DefinitionDeliveries], at sequence: Int64, on connection: SQLiteConnection) throws(StoreError) {
        for request in deliveries.flatMap({ $0.requests(at: sequence) }) { try record(request, on: connection) }
    }

    /// At open, holding the store's lock: claims of webhook rows left by a server killed while it
    /// delivered are released (due as they were, attempts unchanged). No other server can hold
    /// one — one server at a time opens a SQLite store — so waiting out their lease (about 3
    /// minutes by default) delayed those rows, and later versions of them, for nothing.
    static func releaseClaims(on connection: SQLiteConnection) throws(StoreError) {
        try connection.run("UPDATE outbox SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by IS NOT NULL")
    }

    /// Below this many due rows a claim reads those alone; from it on, every row of the webhook
    /// (as before `outbox_due`). With 100,000 rows of the webhook and as many of another
    /// (`Benchmarks/outbox-claims.py`, milliseconds): counting at most 0.31; a claim with 100 due
    /// 0.08, with 1,000 0.55 (every row read: 5.9), with 4,000 2.2 (5.9), with all 57 (20);
    /// before `outbox_due` every claim took 5.4–15.2, also with none due.
    static let fewDue = 4_000

    public func claimDeliveries(webhooks: [String], now: Int64, claimUntil: Int64, owner: String, limit: Int) throws(StoreError) -> [PendingDelivery] {
        try writing { connection throws(StoreError) -> [PendingDelivery] in
            var claimed: [PendingDelivery] = []
            let names = ViewKeys.encode(webhooks)
            // The due rows, counted up to `fewDue` from `outbox_due` alone (none: no claim); then
            // the claim: with few due, those alone are read and sorted (by `outbox_due`); with
            // many, every row of the webhook is, by its primary key (`+due_at` keeps SQLite off
            // `outbox_due`, which would look each of them up in the table: 4× slower), as before.
            var due = 0
            try connection.query("""
                SELECT count(*) FROM (SELECT 1 FROM outbox INDEXED BY outbox_due
                    WHERE webhook IN (SELECT value FROM json_each(?)) AND due_at <= ? AND coalesce(claimed_until, 0) <= ? LIMIT ?)
                """, .text(names), .int(now), .int(now), .int(Int64(Self.fewDue))) { row throws(StoreError) in due = Int(row.int(0)) }
            guard due > 0 else { return [] }
            try connection.query("""
                SELECT webhook, list, partition_key, user_json, version, attempts FROM outbox
                \(due < Self.fewDue ? "INDEXED BY outbox_due" : "")
                WHERE webhook IN (SELECT value FROM json_each(?)) AND \(due < Self.fewDue ? "" : "+")due_at <= ?
                      AND coalesce(claimed_until, 0) <= ?
                ORDER BY pending_since, webhook, list, partition_key LIMIT ?
                """, .text(names), .int(now), .int(now), .int(Int64(limit))) { row throws(StoreError) in
                claimed.append(PendingDelivery(webhook: try row.text(0), list: try row.text(1), partition: try row.text(2),
                                               user: try row.optionalText(3), version: row.int(4), attempts: Int(row.int(5))))
            }
            for delivery in claimed {
                try connection.run("""
                    UPDATE outbox SET claimed_by = ?, claimed_until = ? WHERE webhook = ? AND list = ? AND partition_key = ?
                    """, .text(owner), .int(claimUntil), .text(delivery.webhook), .text(delivery.list), .text(delivery.partition))
            }
            return claimed
        }
    }

    public func deliveryAccepted(_ delivery: PendingDelivery, owner: String) throws(StoreError) {
        try writing { connection throws(StoreError) in
            let deleted = try connection.run("DELETE FROM outbox WHERE webhook = ? AND list = ? AND partition_key = ? AND version <= ?",
                                             .text(delivery.webhook), .text(delivery.list), .text(delivery.partition),
                                             .int(delivery.version))
            guard deleted == 0 else { return }
            // A later version came while this one was on its way: it is due at once, behind the
            // rows already waiting (it waits since that version).
            try connection.run("""
                UPDATE outbox SET attempts = 0, due_at = 0, pending_since = version, claimed_by = NULL, claimed_until = NULL
                WHERE webhook = ? AND list = ? AND partition_key = ? AND claimed_by = ?
                """, .text(delivery.webhook), .text(delivery.list), .text(delivery.partition), .text(owner))
        }
    }

    public func deliveryFailed(_ delivery: PendingDelivery, owner: String, retryAt: Int64) throws(StoreError) {
        _ = try writing { connection throws(StoreError) in
            try connection.run("""
                UPDATE outbox SET attempts = attempts + 1, due_at = ?, claimed_by = NULL, claimed_until = NULL
                WHERE webhook = ? AND list = ? AND partition_key = ? AND claimed_by = ?
                """, .int(retryAt), .text(delivery.webhook), .text(delivery.list), .text(delivery.partition), .text(owner))
        }
    }

    public func deliveryReleased(_ delivery: PendingDelivery, owner: String) throws(StoreError) {
        _ = try writing { connection throws(StoreError) in
            try connection.run("""
                UPDATE outbox SET claimed_by = NULL, claimed_until = NULL
                WHERE webhook = ? AND list = ? AND partition_key = ? AND claimed_by = ?
                """, .text(delivery.webhook), .text(delivery.list), .text(delivery.partition), .text(owner))
        }
    }

    public func outboxStatus(webhooks: [String]) throws(StoreError) -> OutboxStatus {
        try reader.withLock { connection throws(StoreError) in
            var status = OutboxStatus(pending: 0, nextDue: nil)
            try connection.query("""
                SELECT count(*), min(max(due_at, coalesce(claimed_until, 0))) FROM outbox
                WHERE webhook IN (SELECT value FROM json_each(?))
                """, .text(ViewKeys.encode(webhooks))) { row throws(StoreError) in
                let pending = Int(row.int(0))
                status = OutboxStatus(pending: pending, nextDue: pending > 0 ? row.int(1) : nil)
            }
            return status
        }
    }

    public func dropDeliveries(except followed: [String: [String]]) throws(StoreError) -> Int {
        let pairs = followed.flatMap { webhook, lists in lists.map { (webhook, $0) } }
        return try writing { connection throws(StoreError) in
            try connection.run("""
                DELETE FROM outbox WHERE NOT EXISTS (
                    SELECT 1 FROM json_each(?) AS w JOIN json_each(?) AS l ON l.key = w.key
                    WHERE w.value = outbox.webhook AND l.value = outbox.list)
                """, .text(ViewKeys.encode(pairs.map(\.0))), .text(ViewKeys.encode(pairs.map(\.1))))
        }
    }
}
