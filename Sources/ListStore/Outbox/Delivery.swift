import ListModel

/// A webhook delivery a commit asks for: `list` (or one user's partition of it) reached
/// `version`. Recorded in the store's outbox in the commit's own transaction, so an
/// acknowledged write always has its delivery recorded.
///
/// The outbox holds one row per (webhook, list, partition): a later version of the same
/// list and partition replaces the earlier one (deliveries coalesce).
public struct DeliveryRequest: Sendable, Equatable, Hashable {
    /// The webhook's name (its URL).
    public let webhook: String
    public let list: String
    /// The partition's canonical key (``ListModel/ScalarKey/text``); empty for a list that is
    /// the same for everyone.
    public let partition: String
    /// The user's value as JSON text (the partition's owner value), nil for a whole list.
    public let user: String?
    public let version: Int64

    public init(webhook: String, list: String, partition: String = "", user: String? = nil, version: Int64) {
        self.webhook = webhook
        self.list = list
        self.partition = partition
        self.user = user
        self.version = version
    }
}

/// A delivery waiting in the outbox, as a worker claimed it.
public struct PendingDelivery: Sendable, Equatable {
    public let webhook: String
    public let list: String
    public let partition: String
    public let user: String?
    /// The latest version recorded for this list and partition when it was claimed.
    public let version: Int64
    /// Failed attempts so far (for the backoff).
    public let attempts: Int

    public init(webhook: String, list: String, partition: String, user: String?, version: Int64, attempts: Int) {
        self.webhook = webhook
        self.list = list
        self.partition = partition
        self.user = user
        self.version = version
        self.attempts = attempts
    }
}

/// The deliveries a commit's writes make, asked inside the commit's transaction once its writes
/// are applied, with the groups committed and their results (in the same order). Must not
/// touch the store; may run again when the store retries the transaction.
public typealias DeliveryPlanner = @Sendable (_ groups: [[RecordWrite]], _ results: [CommitResult]) -> [DeliveryRequest]

/// The outbox's state for a worker: rows pending, and when the next one falls due.
public struct OutboxStatus: Sendable, Equatable {
    /// Rows of the webhooks asked about.
    public let pending: Int
    /// The earliest time (milliseconds since 1970) a row can be claimed: its retry time, or the
    /// end of another worker's claim; nil when none is pending.
    public let nextDue: Int64?

    public init(pending: Int, nextDue: Int64?) {
        self.pending = pending
        self.nextDue = nextDue
    }
}

/// What the outbox keeps one row for: a webhook, a list and a partition, compared by code points
/// as the SQL stores compare them (two users whose names are canonically equivalent strings,
/// equal to Swift's `String`, are two rows).
public struct OutboxKey: Hashable, Sendable {
    public let webhook: CodePointKey
    public let list: CodePointKey
    public let partition: CodePointKey

    public init(webhook: String, list: String, partition: String) {
        self.webhook = CodePointKey(webhook)
        self.list = CodePointKey(list)
        self.partition = CodePointKey(partition)
    }
}

extension DeliveryRequest {
    /// The outbox row this request records.
    public var outboxKey: OutboxKey { OutboxKey(webhook: webhook, list: list, partition: partition) }

    /// The requests with one per (webhook, list, partition), at its highest version (the last
    /// one's user value).
    static func coalesced(_ requests: [DeliveryRequest]) -> [DeliveryRequest] {
        var latest: [OutboxKey: DeliveryRequest] = [:]
        var order: [OutboxKey] = []
        for request in requests {
            let key = request.outboxKey
            if let known = latest[key] {
                if request.version >= known.version { latest[key] = request }
            } else {
                order.append(key)
                latest[key] = request
            }
        }
        return order.map { latest[$0]! }
    }
}
