import ListStore
import XCTest
@testable import ListModel
@testable import SectionalService

/// The versions writes give keys that are not in memory are kept only while a build may need
/// them: a server whose users keep coming does not grow by an entry per user written, and a
/// build that read storage before a write is still refused however many writes came after.
final class WrittenVersionsTests: XCTestCase {
    private func key(_ user: String) -> MaterializationKey {
        MaterializationKey(list: "orders", partition: PartitionKey(.string(user)))
    }

    func testWithNoBuildInProgressPublishedVersionsGoOnceTheyAreMany() {
        var versions = WrittenVersions()
        for n in 0..<(3 * WrittenVersions.pruneSize) {
            versions.publish([key("u\(n)"): Int64(n + 1)])
            XCTAssertLessThan(versions.count, WrittenVersions.pruneSize, "after \(n + 1) publishes")
        }
    }

    func testAVersionPublishedAfterABuildBeganStaysUntilTheBuildEnds() {
        var versions = WrittenVersions()
        versions.publish([key("before"): 1])
        let ticket = versions.beginBuild()
        versions.publish([key("alice"): 2])
        for n in 0..<(3 * WrittenVersions.pruneSize) { versions.publish([key("u\(n)"): Int64(n + 3)]) }
        XCTAssertEqual(versions[key("alice")], 2, "the build may lack it: kept")
        XCTAssertNil(versions[key("before")], "the build read storage after it: gone")
        versions.endBuild(ticket)
        for n in 0..<(6 * WrittenVersions.pruneSize) { versions.publish([key("w\(n)"): Int64(n + 10_000)]) }
        XCTAssertNil(versions[key("alice")], "gone once no build could need it")
        XCTAssertLessThan(versions.count, 2 * WrittenVersions.pruneSize)
    }

    /// The oldest build in progress holds what was published after it began; a later one does
    /// not keep what came before it.
    func testTheOldestBuildInProgressDecides() {
        var versions = WrittenVersions()
        let first = versions.beginBuild()
        versions.publish([key("alice"): 1])
        let second = versions.beginBuild()
        versions.endBuild(first)
        versions.publish([key("bob"): 2])
        for n in 0..<(2 * WrittenVersions.pruneSize) { versions.publish([key("u\(n)"): Int64(n + 3)]) }
        XCTAssertNil(versions[key("alice")], "published before the only build in progress began")
        XCTAssertEqual(versions[key("bob")], 2)
        versions.endBuild(second)
    }

    /// The race the versions are for, with many writes after it: a partition built from what
    /// storage held before a write to it is not installed.
    func testABuildThatMissedAWriteIsRefusedAfterManyOtherWrites() throws {
        let definition = try XCTUnwrap(ItemsList.definition, "the test definition does not decode")
        let cache = MaterializationCache(maxResidentRows: 1_000_000)
        let alice = key("alice")
        let installed = cache.building { () -> ListState? in
            // The build read storage at version 1; then the writer moved alice to 2, and wrote
            // to thousands of other users.
            cache.publish([:], partitionVersions: [alice: 2])
            for n in 0..<(3 * WrittenVersions.pruneSize) {
                cache.publish([:], partitionVersions: [key("u\(n)"): Int64(n + 3)])
            }
            let built = ListState(snapshot: ListSnapshot.build(definition: definition, records: ["items": []]), version: 1,
                                  partition: alice.partition)
            return cache.install(alice, state: built)
        }
        XCTAssertNil(installed, "built before a write it lacks: refused")
        XCTAssertLessThanOrEqual(cache.writtenVersionCount, 3 * WrittenVersions.pruneSize + 1)
        for n in 0..<(6 * WrittenVersions.pruneSize) {
            cache.publish([:], partitionVersions: [key("w\(n)"): Int64(n + 10_000)])
        }
        XCTAssertLessThan(cache.writtenVersionCount, 2 * WrittenVersions.pruneSize, "no build in progress: pruned")
    }

    /// Through the store: orders of thousands of users, none of whom reads; then each user's
    /// partition is built at the version of its last write, read from the store.
    func testWritesToManyUsersKeepNoVersionEachAndPartitionsComeBackAtTheirVersion() throws {
        let rows = #"[{"key":"all","source":"orders","type":"all","title":"All","row":{"type":"order","title":"{name}"}}]"#
        let orders = try ListDefinitions.decode(name: "orders", JSONParser.parse(#"{"scope":{"field":"owner","claim":"sub"},"sections":"# + rows + "}"))
        let all = try ListDefinitions.decode(name: "all", JSONParser.parse(#"{"sections":"# + rows + "}"))
        let store = try ViewModelStore(definitions: [orders, all], store: MemoryStore(), log: Log(level: .error))
        func version() throws -> Int64 { try XCTUnwrap(store.list("all")).version }
        let users = 4 * WrittenVersions.pruneSize
        var firstBatch: Int64 = 0
        for first in stride(from: 0, to: users, by: 500) {
            try commit(store, (first..<(first + 500)).map { Self.order("o\($0)", owner: "u\($0)") })
            if first == 0 { firstBatch = try version() }
        }
        try commit(store, [Self.order("o7", owner: "u7")])   // u7's last write, the newest commit
        XCTAssertLessThan(store.cache.writtenVersionCount, WrittenVersions.pruneSize,
                          "one entry per user written would be \(users)")
        let u7 = try XCTUnwrap(store.partition(try XCTUnwrap(PartitionKey(.string("u7"))), ofList: "orders"))
        XCTAssertEqual(u7.version, try version(), "built at its last write's version")
        let u8 = try XCTUnwrap(store.partition(try XCTUnwrap(PartitionKey(.string("u8"))), ofList: "orders"))
        XCTAssertEqual(u8.version, firstBatch, "the batch that wrote u8")
        XCTAssertLessThan(firstBatch, try version())
        XCTAssertEqual(u8.snapshot.totalRowCount, 1)
    }

    /// A search of a partition that left memory and was written since its caller read it: made
    /// at the version of that write (read from the store with the records), not at the one the
    /// caller's state had, though no version of the partition is kept in memory any more.
    func testASearchOfAPartitionWrittenSinceItLeftMemoryTakesTheWritesVersion() throws {
        let (store, alice, written) = try alicesPartitionWrittenAfterItLeftMemory()
        let query = ListQuery(text: "order", filters: [], searchFields: [try XCTUnwrap(FieldPath("name"))])
        let result = try XCTUnwrap(store.searched(alice, query: query))
        XCTAssertEqual(result.snapshot.totalRowCount, 2, "both of alice's orders")
        XCTAssertEqual(result.version, written, "the version of the write it shows")
    }

    /// The same for a partition's other language.
    func testALanguageOfAPartitionWrittenSinceItLeftMemoryTakesTheWritesVersion() throws {
        let (store, alice, written) = try alicesPartitionWrittenAfterItLeftMemory()
        let german = try XCTUnwrap(store.localized(alice, language: "de"))
        XCTAssertEqual(german.snapshot.totalRowCount, 2, "both of alice's orders")
        XCTAssertEqual(german.version, written, "the version of the write it shows")
    }

    /// A store whose per-user list `orders` (in English and German, searchable) holds one order
    /// of alice's; her partition as read then, after which it left memory (other users read),
    /// took a second order (at `written`), and writes to thousands of other users followed.
    private func alicesPartitionWrittenAfterItLeftMemory() throws -> (ViewModelStore, ListState, written: Int64) {
        let rows = #"[{"key":"all","source":"orders","type":"all","title":{"en":"All","de":"Alle"},"row":{"type":"order","title":"{name}"}}]"#
        let orders = try ListDefinitions.decode(name: "orders", JSONParser.parse(
            #"{"languages":["en","de"],"search":{"fields":["name"]},"scope":{"field":"owner","claim":"sub"},"sections":"# + rows + "}"))
        let all = try ListDefinitions.decode(name: "all", JSONParser.parse(#"{"languages":["en","de"],"sections":"# + rows + "}"))
        // Room for two partitions of one row.
        let store = try ViewModelStore(definitions: [orders, all], store: MemoryStore(), log: Log(level: .error),
                                       maxResidentRows: 2 * (1 + MaterializationCache.rowsPerEntry))
        func partition(_ user: String) throws -> ListState {
            try XCTUnwrap(store.partition(try XCTUnwrap(PartitionKey(.string(user))), ofList: "orders"))
        }
        try commit(store, ["alice", "bob", "carol", "dan"].map { Self.order("\($0)-1", owner: $0) })
        let alice = try partition("alice")
        for user in ["bob", "carol", "dan"] { _ = try partition(user) }
        XCTAssertNil(store.cache.peek(MaterializationKey(list: "orders", partition: alice.partition)), "alice left memory")
        try commit(store, [Self.order("alice-2", owner: "alice")])
        let written = try XCTUnwrap(store.list("all")).version
        try commit(store, (0..<(2 * WrittenVersions.pruneSize)).map { Self.order("o\($0)", owner: "u\($0)") })
        XCTAssertLessThan(store.cache.writtenVersionCount, WrittenVersions.pruneSize)
        return (store, alice, written)
    }

    private static func order(_ id: String, owner: String) -> ViewModelStore.Write {
        var object = JSONObject()
        object["name"] = .string("order \(id)")
        object["owner"] = .string(owner)
        return .upsert(collection: "orders", record: IncomingRecord(id: id, object: object))
    }
}
