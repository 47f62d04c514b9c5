import Dispatch
import ListStore
import Locking
import XCTest
@testable import ListModel
@testable import SectionalService

/// A thread's last warm search (``RecentSearch``): the same search parameters on the same list
/// or partition find the same result while nothing in memory changed, and never otherwise.
final class RecentSearchTests: XCTestCase {
    private static func definitions() throws -> [ListDefinition] {
        try ListDefinitions.decode(JSONParser.parse(#"""
        {"people":{"search":{"fields":["name"]},"filters":["team"],
                   "sections":[{"key":"all","source":"people","type":"all","title":"All","sortBy":[{"field":"name"}],
                                "row":{"type":"person","title":"{name}"}}]},
         "staff":{"search":{"fields":["name"]},
                  "sections":[{"key":"all","source":"people","type":"all","title":"All","row":{"type":"person","title":"{name}"}}]},
         "orders":{"scope":{"field":"owner","claim":"sub"},"search":{"fields":["title"]},
                   "sections":[{"key":"mine","source":"orders","type":"mine","title":"Mine","row":{"type":"order","title":"{title}"}}]}}
        """#))
    }

    private func store() throws -> ViewModelStore {
        try ViewModelStore(definitions: try Self.definitions(), store: MemoryStore(), log: Log(level: .error))
    }

    private func query(_ text: String) throws -> ListQuery {
        ListQuery(text: text, filters: [], searchFields: [try XCTUnwrap(FieldPath("name"))])
    }

    /// Commits upserts of `(collection, id, fields)` and waits for them.
    private func write(_ store: ViewModelStore, _ records: [(String, String, JSONObject)]) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        store.commitLater(records.map { .upsert(collection: $0.0, record: IncomingRecord(id: $0.1, object: $0.2)) }) { result in
            if case .failure(let error) = result { failure.withLock { $0 = "\(error)" } }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the commit answered")
        if let error = failure.withLock({ $0 }) { XCTFail(error) }
    }

    private func object(_ fields: [String: String]) -> JSONObject {
        var object = JSONObject()
        for (name, value) in fields { object[name] = .string(value) }
        return object
    }

    private func person(_ id: String, _ name: String) -> (String, String, JSONObject) {
        ("people", id, object(["name": name, "team": "Design"]))
    }

    func testTheSameParametersOnTheSameListFindTheWarmResultUntilAnythingChanges() throws {
        let store = try store()
        try write(store, [person("p1", "Anna"), person("p2", "Bert")])
        let base = try XCTUnwrap(store.list("people"))
        let items = [(name: "pageSize", value: "1"), (name: "q", value: "ann")]
        let cold = try XCTUnwrap(store.searched(base, query: try query("ann"), items: items))
        let warm = try XCTUnwrap(store.searched(base, query: try query("ann"), items: items))
        XCTAssertIdentical(warm, cold)

        XCTAssertIdentical(store.recentSearch(of: base, items: items), warm)
        XCTAssertIdentical(store.recentSearch(of: base, items: [(name: "q", value: "ann"), (name: "pageSize", value: "2")]), warm,
                           "other parameters do not count")
        XCTAssertNil(store.recentSearch(of: base, items: [(name: "q", value: "ANN")]), "the parameters as sent")
        XCTAssertNil(store.recentSearch(of: base, items: [(name: "q", value: "ann"), (name: "filter.team", value: "Design")]))
        XCTAssertNil(store.recentSearch(of: base, items: [(name: "q", value: "ann"), (name: "q", value: "bert")]))
        XCTAssertNil(store.recentSearch(of: base, items: [(name: "pageSize", value: "1")]), "no search: the list itself")
        XCTAssertNil(store.recentSearch(of: base, items: []))
        XCTAssertNil(store.recentSearch(of: try XCTUnwrap(store.list("staff")), items: items), "another list")

        try write(store, [person("p3", "Annika")])
        let next = try XCTUnwrap(store.list("people"))
        XCTAssertNil(store.recentSearch(of: next, items: items), "a write changed what is in memory")
        let moved = try XCTUnwrap(store.searched(next, query: try query("ann"), items: items))
        XCTAssertEqual(moved.version, next.version)
        XCTAssertTrue(moved.snapshot.contains(rowID: "p3"), "the write is in the result")
        XCTAssertIdentical(store.recentSearch(of: next, items: items), moved)
    }

    func testAUsersPartitionNeverFindsAnotherUsersResult() throws {
        let store = try store()
        try write(store, [("orders", "a1", object(["owner": "alice", "title": "Desk lamp"])), ("orders", "b1", object(["owner": "bob", "title": "Lamp"]))])
        let definition = try XCTUnwrap(store.definitions.first { $0.name == "orders" })
        let alice = try store.partition(try XCTUnwrap(PartitionKey(.string("alice"))), of: definition)
        let bob = try store.partition(try XCTUnwrap(PartitionKey(.string("bob"))), of: definition)
        let lamp = ListQuery(text: "lamp", filters: [], searchFields: [try XCTUnwrap(FieldPath("title"))])
        let items = [(name: "q", value: "lamp")]
        _ = try store.searched(alice, query: lamp, items: items)
        let warm = try XCTUnwrap(store.searched(alice, query: lamp, items: items))
        XCTAssertTrue(warm.snapshot.contains(rowID: "a1"))
        XCTAssertIdentical(store.recentSearch(of: alice, items: items), warm)
        XCTAssertNil(store.recentSearch(of: bob, items: items), "bob's partition is another base")
    }
}
