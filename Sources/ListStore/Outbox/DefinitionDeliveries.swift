import ListModel

/// The webhook deliveries a change of one list's definition asks for: one per webhook that
/// follows the list, naming no user. The change moves the list to a new version — and, for a
/// per-user list, every user's partition at once — so a per-user list's change is one delivery
/// for all its users, not one each (as a write's would be): the commit stays as short for a
/// million users as for one, and the receiver can tell every user at once (a topic or broadcast
/// push) instead of taking a million requests.
///
/// The store records them in the change's own transaction at its number (as a commit records
/// its writes' deliveries), so a change that is durable always has them recorded.
public struct DefinitionDeliveries: Sendable, Equatable {
    public let list: String
    /// The webhooks (their URLs) that follow the list.
    public let webhooks: [String]

    public init(list: String, webhooks: [String]) {
        self.list = list
        self.webhooks = webhooks
    }

    /// The requests at change number `sequence`.
    public func requests(at sequence: Int64) -> [DeliveryRequest] {
        webhooks.map { DeliveryRequest(webhook: $0, list: list, version: sequence) }
    }
}
