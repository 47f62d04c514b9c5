/// The webhook outbox in PostgreSQL, shared by every instance: commits write its rows in their
/// transaction; each instance's delivery worker claims due rows for a while (a lease:
/// `claimed_by`, `claimed_until`) with `FOR UPDATE SKIP LOCKED`, so two instances never send the
/// same row at once, and a row whose instance died is taken by another once its lease ends.
/// Every statement here is one short transaction of its own that waits on no other lock.
extension PostgresStore {
    /// Adds a delivery to the outbox, or moves its row to the later version (keeping its retry time
    /// and its `pending_since`, its place in the claim order).
    static func record(_ request: DeliveryRequest, on connection: PostgresConnection) throws(PostgresError) {
        try connection.execute("""
            INSERT INTO outbox (webhook, list, partition_key, user_json, version, pending_since) VALUES ($1, $2, $3, $4, $5::bigint, $5::bigint)
            ON CONFLICT (webhook, list, partition_key) DO UPDATE SET version = GREATEST(outbox.version, excluded.version),
                                                                     user_json = excluded.user_json
            """, .text(request.webhook), .text(request.list), .text(StoredText.encode(request.partition)),
            request.user.map { .text($0) } ?? .null, .int(request.version))
    }

    /// Records the deliveries of a change of definitions at its number `sequence`.
    static func record(_ deliveries: [DefinitionDeliveries], at sequence: Int64, on connection: PostgresConnection) throws(PostgresError) {
        for request in deliveries.flatMap({ $0.requests(at: sequence) }) { try record(request, on: connection) }
    }

    public func claimDeliveries(webhooks: [String], now: Int64, claimUntil: Int64, owner: String, limit: Int) throws(StoreError) -> [PendingDelivery] {
        try writing { connection throws(PostgresError) in
            // `RETURNING` gives the updated rows in no set order (the subquery's is its own): they
            // are ordered again, to be sent longest waiting first, as claimed.
            let result = try connection.execute("""
                WITH claimed AS (
                    UPDATE outbox SET claimed_by = $3, claimed_until = $4::bigint
                    WHERE (webhook, list, partition_key) IN (
                        SELECT webhook, list, partition_key FROM outbox
                        WHERE webhook = ANY ($1::text[]) AND due_at <= $2::bigint AND coalesce(claimed_until, 0) <= $2::bigint
                        ORDER BY pending_since, webhook, list, partition_key LIMIT $5::bigint
                        FOR UPDATE SKIP LOCKED)
                    RETURNING webhook, list, partition_key, user_json, version, attempts, pending_since)
                SELECT webhook, list, partition_key, user_json, version, attempts FROM claimed
                ORDER BY pending_since, webhook, list, partition_key
                """, PostgresArray.text(webhooks), .int(now), .text(owner), .int(claimUntil), .int(Int64(limit)))
            var claimed: [PendingDelivery] = []
            for row in 0..<result.rowCount {
                claimed.append(PendingDelivery(webhook: result.string(row, 0), list: result.string(row, 1), partition: StoredText.decode(result.string(row, 2)),
                                               user: result.optionalString(row, 3), version: try result.int(row, 4),
                                               attempts: Int(try result.int(row, 5))))
            }
            return claimed
        }
    }

    public func deliveryAccepted(_ delivery: PendingDelivery, owner: String) throws(StoreError) {
        try writing { connection throws(PostgresError) -> Void in
            let deleted = try connection.execute("""
                DELETE FROM outbox WHERE webhook = $1 AND list = $2 AND partition_key = $3 AND version <= $4::bigint RETURNING version
                """, .text(delivery.webhook), .text(delivery.list), .text(StoredText.encode(delivery.partition)), .int(delivery.version))
            guard deleted.rowCount == 0 else { return }
            // A later version came while this one was on its way: it is due at once, behind the
            // rows already waiting (it waits since that version).
            _ = try connection.execute("""
                UPDATE outbox SET attempts = 0, due_at = 0, pending_since = version, claimed_by = NULL, claimed_until = NULL
                WHERE webhook = $1 AND list = $2 AND partition_key = $3 AND claimed_by = $4
                """, .text(delivery.webhook), .text(delivery.list), .text(StoredText.encode(delivery.partition)), .text(owner))
        }
    }

    public func deliveryFailed(_ delivery: PendingDelivery, owner: String, retryAt: Int64) throws(StoreError) {
        try writing { connection throws(PostgresError) in
            _ = try connection.execute("""
                UPDATE outbox SET attempts = attempts + 1, due_at = $1::bigint, claimed_by = NULL, claimed_until = NULL
                WHERE webhook = $2 AND list = $3 AND partition_key = $4 AND claimed_by = $5
                """, .int(retryAt), .text(delivery.webhook), .text(delivery.list), .text(StoredText.encode(delivery.partition)), .text(owner))
        }
    }

    public func deliveryReleased(_ delivery: PendingDelivery, owner: String) throws(StoreError) {
        try writing { connection throws(PostgresError) in
            _ = try connection.execute("""
                UPDATE outbox SET claimed_by = NULL, claimed_until = NULL
                WHERE webhook = $1 AND list = $2 AND partition_key = $3 AND claimed_by = $4
                """, .text(delivery.webhook), .text(delivery.list), .text(StoredText.encode(delivery.partition)), .text(owner))
        }
    }

    public func outboxStatus(webhooks: [String]) throws(StoreError) -> OutboxStatus {
        try reading { connection throws(PostgresError) in
            let result = try connection.execute("""
                SELECT count(*), min(GREATEST(due_at, coalesce(claimed_until, 0))) FROM outbox WHERE webhook = ANY ($1::text[])
                """, PostgresArray.text(webhooks))
            let pending = result.rowCount > 0 ? Int(try result.int(0, 0)) : 0
            return OutboxStatus(pending: pending, nextDue: pending > 0 ? try result.int(0, 1) : nil)
        }
    }

    public func dropDeliveries(except followed: [String: [String]]) throws(StoreError) -> Int {
        let pairs = followed.flatMap { webhook, lists in lists.map { (webhook, $0) } }
        return try writing { connection throws(PostgresError) in
            let result = try connection.execute("""
                DELETE FROM outbox WHERE NOT EXISTS (
                    SELECT 1 FROM unnest($1::text[], $2::text[]) AS kept (webhook, list)
                    WHERE kept.webhook = outbox.webhook AND kept.list = outbox.list)
                RETURNING webhook
                """, PostgresArray.text(pairs.map(\.0)), PostgresArray.text(pairs.map(\.1)))
            return result.rowCount
        }
    }
}
