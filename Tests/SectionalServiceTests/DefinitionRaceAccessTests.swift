import Dispatch
import ListStore
import XCTest
@testable import ListModel
@testable import SectionalService

/// A request checks its caller against the list it read first; its language or search, built
/// later, must come from that same definition. When the definition changed between (made
/// per-user here, as `PUT …/definition` or a reload can while a request is in flight), the
/// language or search is not built from the new one — with every user's records, for a caller
/// the new one would refuse — but the request is read again from the start (nil).
final class DefinitionRaceAccessTests: XCTestCase {
    func testALanguageAskedForUnderADefinitionMadePerUserSinceIsNotBuilt() throws {
        let store = try ordersForEveryone()
        let before = try XCTUnwrap(store.list("orders"))
        try change(store, to: perUser)

        XCTAssertNil(try store.localized(before, language: "de"), "read the request again, under the per-user list")
        XCTAssertNil(store.cache.peek(MaterializationKey(list: "orders", partition: nil, language: "de")), "nothing kept")
    }

    func testASearchAskedForUnderADefinitionMadePerUserSinceIsNotBuilt() throws {
        let store = try ordersForEveryone()
        let before = try XCTUnwrap(store.list("orders"))
        try change(store, to: perUser)

        let query = ListQuery(text: "order", filters: [], searchFields: [try XCTUnwrap(FieldPath("name"))])
        XCTAssertNil(try store.searched(before, query: query), "read the request again, under the per-user list")
        XCTAssertNil(store.corpora.withLock { $0["orders"] }, "no corpus made for a per-user list")
    }

    /// A user's partition asked for under the per-user definition after the list stopped being
    /// per-user: answered to that request as it asked (its own records), not kept — no write
    /// would move it, and it held memory until evicted.
    func testAPartitionAskedForAfterTheListStoppedBeingPerUserIsNotKept() throws {
        let store = try ordersForEveryone()
        try change(store, to: perUser)
        let split = try XCTUnwrap(store.definition("orders"))
        try change(store, to: forEveryone)
        let alice = try XCTUnwrap(PartitionKey(.string("alice")))

        XCTAssertEqual(try store.partition(alice, of: split).snapshot.totalRowCount, 1, "alice's order")
        XCTAssertNil(store.cache.peek(MaterializationKey(list: "orders", partition: alice)), "not kept")
        XCTAssertNil(try store.partition(alice, ofList: "orders"), "not a per-user list")
    }

    /// The same requests under the definition in force are answered (what the nil above is not).
    func testALanguageAndASearchUnderTheDefinitionInForceAreBuilt() throws {
        let store = try ordersForEveryone()
        let now = try XCTUnwrap(store.list("orders"))
        XCTAssertEqual(try XCTUnwrap(store.localized(now, language: "de")).snapshot.totalRowCount, 2)
        let query = ListQuery(text: "order", filters: [], searchFields: [try XCTUnwrap(FieldPath("name"))])
        XCTAssertEqual(try XCTUnwrap(store.searched(now, query: query)).snapshot.totalRowCount, 2)
    }

    private let forEveryone = #"""
    {"languages":["en","de"],"search":{"fields":["name"]},
     "sections":[{"key":"all","source":"orders","type":"all","title":{"en":"All","de":"Alle"},"row":{"type":"order","title":"{name}"}}]}
    """#
    private let perUser = #"""
    {"languages":["en","de"],"search":{"fields":["name"]},"scope":{"field":"owner","claim":"sub"},
     "sections":[{"key":"all","source":"orders","type":"all","title":{"en":"All","de":"Alle"},"row":{"type":"order","title":"{name}"}}]}
    """#

    /// The list for everyone, with alice's order and bob's.
    private func ordersForEveryone() throws -> ViewModelStore {
        let definition = try ListDefinitions.decode(name: "orders", JSONParser.parse(forEveryone))
        let store = try ViewModelStore(definitions: [definition], store: MemoryStore(), log: Log(level: .error))
        let writes = [("o1", "alice"), ("o2", "bob")].map { id, owner -> ViewModelStore.Write in
            var object = JSONObject()
            object["name"] = .string("order \(id)")
            object["owner"] = .string(owner)
            return .upsert(collection: "orders", record: IncomingRecord(id: id, object: object))
        }
        try commit(store, writes)
        return store
    }

    private func change(_ store: ViewModelStore, to json: String) throws {
        let definition = try ListDefinitions.decode(name: "orders", JSONParser.parse(json))
        let done = DispatchSemaphore(value: 0)
        store.changeDefinitionLater("orders", to: definition) { _ in done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the change answered")
    }
}
