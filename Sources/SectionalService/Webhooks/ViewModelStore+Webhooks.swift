import ListModel
import ListStore

/// Which webhook deliveries a commit makes, decided inside the commit's transaction so the
/// outbox row is durable with the write that moved the version.
extension ViewModelStore {
    /// For every webhook and every list of it that reads a collection a group wrote: the list at
    /// the group's version — or, for a per-user list, each partition the write moved (the
    /// record's owner after the write and before it), named by its user. One request per list
    /// and partition, at the last version that moved it: a batch of 10,000 records into one list
    /// records one outbox row, not 10,000 upserts of the same row.
    func plannedDeliveries(_ groups: [[RecordWrite]], _ results: [CommitResult]) -> [DeliveryRequest] {
        guard !webhooks.isEmpty else { return [] }
        // The definitions in force now (a run-time definition may have replaced a config list's).
        let followed = catalog.withLock { catalog -> [(url: String, definition: ListDefinition)] in
            var followed: [(url: String, definition: ListDefinition)] = []
            for webhook in webhooks {
                for name in webhook.lists {
                    if let definition = catalog.definition(name) { followed.append((webhook.url, definition)) }
                }
            }
            return followed
        }
        var requests: [OutboxKey: DeliveryRequest] = [:]
        func plan(_ request: DeliveryRequest) { requests[request.outboxKey] = request }
        for (writes, result) in zip(groups, results) where result.changedAnything {
            for (index, write) in writes.enumerated() {
                let collection: String
                var written: [UInt8]?
                switch write {
                case .upsert(let name, _, let json):
                    collection = name
                    written = json
                case .delete(let name, _):
                    guard result.existed[index] else { continue }
                    collection = name
                }
                for (url, definition) in followed where definition.reads(collection: collection) {
                    guard let scope = definition.scope else {
                        plan(DeliveryRequest(webhook: url, list: definition.name, version: result.sequence))
                        continue
                    }
                    let owners = [written, result.previous[index]].compactMap { $0.flatMap { try? JSONParser.parse($0) } }
                    var seen: Set<PartitionKey> = []
                    for record in owners {
                        guard let owner = Self.owner(of: record, scope: scope), seen.insert(owner).inserted else { continue }
                        var writer = JSONWriter(capacity: 32)
                        writer.value(owner.value)
                        plan(DeliveryRequest(webhook: url, list: definition.name, partition: owner.text,
                                                        user: String(decoding: writer.bytes, as: UTF8.self), version: result.sequence))
                    }
                }
            }
        }
        return Array(requests.values)
    }
}

extension ViewModelStore {
    /// The deliveries a change of list `definition`'s definition makes, for the store to record
    /// in the change's commit (``DefinitionDeliveries``: one per webhook, for every user of a
    /// per-user list at once); nil when no webhook follows the list. A list the change removes
    /// moves to no version, and makes none.
    static func definitionDeliveries(_ definition: ListDefinition, webhooks: [WebhookSettings]) -> DefinitionDeliveries? {
        let following = webhooks.filter { $0.lists.contains(definition.name) }.map(\.url)
        return following.isEmpty ? nil : DefinitionDeliveries(list: definition.name, webhooks: following)
    }

    /// ``definitionDeliveries(_:webhooks:)`` with this store's webhooks.
    func definitionDeliveries(_ definition: ListDefinition) -> DefinitionDeliveries? {
        Self.definitionDeliveries(definition, webhooks: webhooks)
    }
}
