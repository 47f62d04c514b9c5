import Dispatch
import ListStore
import Locking
import XCTest
@testable import ListModel
@testable import SectionalService

/// A store whose list reads each queue a write to the list (through `onRead`, set once the store
/// is made): the write commits as soon as the reader lets the writer's lock go, while it builds.
final class WritingWhileReadStore: ForwardingStore, @unchecked Sendable {
    let reads = Locked(0)
    var onRead: (@Sendable () -> Void)?

    override func allRecords(in collection: String) throws(StoreError) -> [StoredRecord] {
        let records = try base.allRecords(in: collection)
        read()
        return records
    }

    override func records(in collection: String, field: FieldPath, equals value: JSONValue) throws(StoreError) -> [StoredRecord] {
        let records = try base.records(in: collection, field: field, equals: value)
        read()
        return records
    }

    private func read() {
        if reads.withLock({ $0 += 1; return $0 }) <= 10 { onRead?() }   // at most 10: the old code read forever
    }
}

/// The first read of a language or a search, while the list is written faster than it is built
/// (each attempt's build meets a write): answered, not made again and again.
final class BuildUnderWritesTests: XCTestCase {
    private static let definition = #"""
    {"languages":["en","de"],"search":{"fields":["name"]},
     "sections":[{"key":"all","source":"orders","type":"all","title":{"en":"All","de":"Alle"},"row":{"type":"order","title":"{name}"}}]}
    """#
    private static let perUser = #"""
    {"search":{"fields":["name"]},"scope":{"field":"owner","claim":"sub"},
     "sections":[{"key":"all","source":"orders","type":"all","title":"All","row":{"type":"order","title":"{name}"}}]}
    """#

    /// 20,000 orders of alice's (a build takes long enough for a write to land while it runs) and
    /// a write queued by every read of them.
    private func ordersWrittenWhileRead(_ json: String = definition) throws -> (ViewModelStore, WritingWhileReadStore) {
        let racing = WritingWhileReadStore(MemoryStore())
        let definition = try ListDefinitions.decode(name: "orders", JSONParser.parse(json))
        let store = try ViewModelStore(definitions: [definition], store: racing, log: Log(level: .error))
        try commit(store, (0..<20_000).map { Self.order("o\($0)") })
        return (store, racing)
    }

    private static func order(_ id: String) -> ViewModelStore.Write {
        var object = JSONObject()
        object["name"] = .string("order \(id) \(UInt64.random(in: 0...UInt64.max))")
        object["owner"] = "alice"
        return .upsert(collection: "orders", record: IncomingRecord(id: id, object: object))
    }

    func testALanguageOfAListWrittenWhileItIsBuiltIsBuiltAtMostTwiceAndKept() throws {
        let (store, racing) = try ordersWrittenWhileRead()
        let english = try XCTUnwrap(store.list("orders"))
        racing.onRead = { [weak store] in store?.commitLater([Self.order("late")]) { _ in } }
        let german = try XCTUnwrap(store.localized(english, language: "de"))
        XCTAssertGreaterThanOrEqual(german.snapshot.totalRowCount, 20_000)
        XCTAssertEqual(racing.reads.withLock { $0 }, 2, "a second build, under the writer's lock, and no more")
        XCTAssertNotNil(store.cache.peek(MaterializationKey(list: "orders", partition: nil, language: "de")), "kept")
    }

    /// A search of a user's partition (read from storage on each attempt): answered at the second.
    func testASearchOfAPartitionWrittenWhileItIsMadeIsAnsweredAtTheSecond() throws {
        let (store, racing) = try ordersWrittenWhileRead(Self.perUser)
        let alice = try XCTUnwrap(store.partition(try XCTUnwrap(PartitionKey(.string("alice"))), ofList: "orders"))
        racing.reads.withLock { $0 = 0 }
        racing.onRead = { [weak store] in store?.commitLater([Self.order("late")]) { _ in } }
        let query = ListQuery(text: "order", filters: [], searchFields: [try XCTUnwrap(FieldPath("name"))])
        let result = try XCTUnwrap(store.searched(alice, query: query))
        XCTAssertGreaterThanOrEqual(result.snapshot.totalRowCount, 20_000)
        XCTAssertEqual(racing.reads.withLock { $0 }, 2, "answered by the second, though a write came again")
    }
}
