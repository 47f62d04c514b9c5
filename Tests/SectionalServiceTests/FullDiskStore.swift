import ListModel
import ListStore
@testable import SectionalService

/// A store whose disk holds `capacity` records: a commit that would pass it fails as SQLite's
/// `SQLITE_FULL` does (nothing of it kept), and once it is full so do the other writes of
/// definitions (`takeSequence`, `recordServed`); everything else goes to `base`.
final class FullDiskStore: ForwardingStore, @unchecked Sendable {
    private let capacity: Int
    private var written = 0

    init(_ base: RecordStore, capacity: Int) {
        self.capacity = capacity
        super.init(base)
    }

    override func commit(groups: [[RecordWrite]], previousIn: Set<String>, deliveries: DeliveryPlanner) throws(StoreError) -> [CommitResult] {
        let writes = groups.reduce(0) { $0 + $1.count }
        guard written + writes <= capacity else { throw StoreError(.sqlite(extendedCode: 13), "database or disk is full") }
        written += writes
        return try base.commit(groups: groups, previousIn: previousIn, deliveries: deliveries)
    }

    override func takeSequence(deliveries: [DefinitionDeliveries]) throws(StoreError) -> Int64 {
        guard written < capacity else { throw StoreError(.sqlite(extendedCode: 13), "database or disk is full") }
        return try base.takeSequence(deliveries: deliveries)
    }

    override func recordServed(_ served: [String: ServedDefinition]) throws(StoreError) {
        guard written < capacity else { throw StoreError(.sqlite(extendedCode: 13), "database or disk is full") }
        try base.recordServed(served)
    }
}
