import ListModel

/// The webhook deliveries a change of one list's definition asks for. The change moves the list
/// to a new version — and, for a per-user list, every user's partition — so each webhook that
/// follows the list hears of it as of a write: one delivery for a list that is the same for
/// everyone, one per user for a per-user list.
///
/// The store records them in the change's own transaction at its number (as a commit records
/// its writes' deliveries), so a change that is durable always has them recorded. The users of
/// a per-user list are those the store keeps a partition version for: every owner value a record
/// of a source collection has held since the owner field was first prepared (a user whose
/// records were all deleted since is told too; their partition moved all the same).
public struct DefinitionDeliveries: Sendable, Equatable {
    /// Where a per-user list's users are found: the owner field in each source collection.
    public struct Owners: Sendable, Equatable {
        public let field: FieldPath
        public let collections: [String]

        public init(field: FieldPath, collections: [String]) {
            self.field = field
            self.collections = collections
        }
    }

    public let list: String
    /// The webhooks (their URLs) that follow the list.
    public let webhooks: [String]
    /// Nil for a list that is the same for everyone.
    public let owners: Owners?

    public init(list: String, webhooks: [String], owners: Owners? = nil) {
        self.list = list
        self.webhooks = webhooks
        self.owners = owners
    }

    /// The requests at change number `sequence`, given the canonical keys (``ScalarKey/text``)
    /// of the per-user list's users (ignored for a list that is the same for everyone). A key
    /// that is not a scalar's is skipped.
    public func requests(at sequence: Int64, users: some Sequence<String>) -> [DeliveryRequest] {
        guard owners != nil else { return webhooks.map { DeliveryRequest(webhook: $0, list: list, version: sequence) } }
        let named = users.compactMap { key in Self.userJSON(ofKey: key).map { (key, $0) } }
        return webhooks.flatMap { webhook in
            named.map { DeliveryRequest(webhook: webhook, list: list, partition: $0.0, user: $0.1, version: sequence) }
        }
    }

    /// The owner value a canonical key stands for, as JSON text (what a write's delivery names the
    /// user by): `s:ann` → `"ann"`, `n:2.5` → `2.5`, `b:true` → `true`; nil for any other text
    /// (the marker row of a prepared field has the empty key).
    static func userJSON(ofKey key: String) -> String? {
        let bytes = key.utf8
        guard bytes.count >= 2, bytes.dropFirst().first == UInt8(ascii: ":") else { return nil }
        let rest = String(key.utf8.dropFirst(2))!
        switch bytes.first {
        case UInt8(ascii: "s"):
            var writer = JSONWriter(capacity: rest.utf8.count + 2)
            writer.value(.string(rest))
            return String(decoding: writer.bytes, as: UTF8.self)
        case UInt8(ascii: "n"), UInt8(ascii: "b"):
            return rest.isEmpty ? nil : rest
        default:
            return nil
        }
    }
}
