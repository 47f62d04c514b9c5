import ListModel
import ListStore
@testable import SectionalService

/// A store that hands every call to `base`: a test's store overrides the calls it changes
/// (``FullDiskStore``, ``WritingWhileReadStore``).
class ForwardingStore: RecordStore, @unchecked Sendable {
    let base: RecordStore

    init(_ base: RecordStore) { self.base = base }

    func commit(groups: [[RecordWrite]], previousIn: Set<String>, deliveries: DeliveryPlanner) throws(StoreError) -> [CommitResult] {
        try base.commit(groups: groups, previousIn: previousIn, deliveries: deliveries)
    }
    func commit(previousIn: Set<String>, deliveries: DeliveryPlanner,
                prepare: (RecordLookup) throws(StoreError) -> [[RecordWrite]?]) throws(StoreError) -> [CommitResult?] {
        try base.commit(previousIn: previousIn, deliveries: deliveries, prepare: prepare)
    }
    func lastSequence() throws(StoreError) -> Int64 { try base.lastSequence() }
    func collectionSequences() throws(StoreError) -> [String: Int64] { try base.collectionSequences() }
    func allRecords(in collection: String) throws(StoreError) -> [StoredRecord] { try base.allRecords(in: collection) }
    func forEachPage(in collection: String, pageSize: Int,
                     _ body: @Sendable ([StoredRecord]) throws(StoreError) -> Void) throws(StoreError) {
        try base.forEachPage(in: collection, pageSize: pageSize, body)
    }
    func record(in collection: String, id: String) throws(StoreError) -> StoredRecord? { try base.record(in: collection, id: id) }
    func records(in collection: String, ids: [String]) throws(StoreError) -> [StoredRecord] { try base.records(in: collection, ids: ids) }
    func records(in collection: String, after afterID: String?, limit: Int) throws(StoreError) -> [StoredRecord] {
        try base.records(in: collection, after: afterID, limit: limit)
    }
    func prepareField(_ field: FieldPath, in collection: String) throws(StoreError) { try base.prepareField(field, in: collection) }
    func fieldVersion(_ field: FieldPath, in collection: String, key: ScalarKey) throws(StoreError) -> Int64? {
        try base.fieldVersion(field, in: collection, key: key)
    }
    var tracksFieldVersions: Bool { base.tracksFieldVersions }
    func records(in collection: String, field: FieldPath, equals value: JSONValue) throws(StoreError) -> [StoredRecord] {
        try base.records(in: collection, field: field, equals: value)
    }
    func saveView(_ view: StoredView) throws(StoreError) { try base.saveView(view) }
    func updateView(_ view: StoredView, replacing previous: [String]) throws(StoreError) -> Bool { try base.updateView(view, replacing: previous) }
    func allViews() throws(StoreError) -> [StoredView] { try base.allViews() }
    func view(id: String) throws(StoreError) -> StoredView? { try base.view(id: id) }
    func deleteView(id: String) throws(StoreError) -> Bool { try base.deleteView(id: id) }
    func touchViews(_ ids: [String], at time: Int64) throws(StoreError) { try base.touchViews(ids, at: time) }
    func deleteViews(ids: [String]) throws(StoreError) -> Int { try base.deleteViews(ids: ids) }
    func readConsistently<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T { try base.readConsistently(body) }
    func saveDefinition(list: String, json: [UInt8]?, expecting: DefinitionExpectation,
                        deliveries: DefinitionDeliveries?) throws(StoreError) -> DefinitionSave {
        try base.saveDefinition(list: list, json: json, expecting: expecting, deliveries: deliveries)
    }
    func allDefinitions() throws(StoreError) -> [StoredDefinition] { try base.allDefinitions() }
    func takeSequence(deliveries: [DefinitionDeliveries]) throws(StoreError) -> Int64 { try base.takeSequence(deliveries: deliveries) }
    func recordServed(_ served: [String: ServedDefinition]) throws(StoreError) { try base.recordServed(served) }
    func servedDefinitions() throws(StoreError) -> [String: ServedDefinition] { try base.servedDefinitions() }
    func claimDeliveries(webhooks: [String], now: Int64, claimUntil: Int64, owner: String, limit: Int) throws(StoreError) -> [PendingDelivery] {
        try base.claimDeliveries(webhooks: webhooks, now: now, claimUntil: claimUntil, owner: owner, limit: limit)
    }
    func deliveryAccepted(_ delivery: PendingDelivery, owner: String) throws(StoreError) { try base.deliveryAccepted(delivery, owner: owner) }
    func deliveryFailed(_ delivery: PendingDelivery, owner: String, retryAt: Int64) throws(StoreError) {
        try base.deliveryFailed(delivery, owner: owner, retryAt: retryAt)
    }
    func deliveryReleased(_ delivery: PendingDelivery, owner: String) throws(StoreError) { try base.deliveryReleased(delivery, owner: owner) }
    func outboxStatus(webhooks: [String]) throws(StoreError) -> OutboxStatus { try base.outboxStatus(webhooks: webhooks) }
    func dropDeliveries(except followed: [String: [String]]) throws(StoreError) -> Int { try base.dropDeliveries(except: followed) }
    func close() { base.close() }
}
