import Dispatch
import ListStore
import Locking
import XCTest
@testable import ListModel
@testable import SectionalService

/// Conditions of writes committed together (one transaction, each group its own version) are
/// checked against the groups before them: a record an earlier group wrote is at a version not
/// known yet, but newer than any it had.
final class GroupCommitConditionTests: XCTestCase {
    private func makeStore() throws -> ViewModelStore {
        let definitions = try ListDefinitions.decode(JSONParser.parse(#"""
        {"people":{"sections":[{"key":"all","source":"people","type":"all","title":"All","row":{"type":"person","title":"{name}"}}]}}
        """#))
        return try ViewModelStore(definitions: definitions, store: MemoryStore(), log: Log(level: .error))
    }

    private func upsert(_ name: String) -> ViewModelStore.Write {
        .upsert(collection: "people", record: IncomingRecord(id: "x", object: JSONObject([("name", .string(name))])))
    }

    /// Commits `groups` in one batch: the writer is held until all are queued.
    private func commitTogether(_ store: ViewModelStore, _ groups: [([ViewModelStore.Write], [WriteCondition])]) -> [CommitResult?] {
        let release = DispatchSemaphore(value: 0)
        store.onWriter { release.wait() }
        let results = Locked<[Int: CommitResult]>([:])
        let done = DispatchGroup()
        for (index, group) in groups.enumerated() {
            done.enter()
            store.commitLater(group.0, conditions: group.1) { result in
                if case .success(let committed) = result { results.withLock { $0[index] = committed } }
                done.leave()
            }
        }
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        return groups.indices.map { index in results.withLock { $0[index] } }
    }

    func testIfNoneMatchOfAnOldVersionHoldsAfterAnEarlierGroupWroteTheRecord() throws {
        let store = try makeStore()
        try commit(store, [upsert("first")])
        try commit(store, [upsert("second")])
        let old = WriteCondition(collection: "people", id: "x", expectation: .notVersion([1]))
        let results = commitTogether(store, [([upsert("third")], []), ([upsert("fourth")], [old])])
        XCTAssertEqual(results[0]?.conflicts, [])
        XCTAssertEqual(results[1]?.conflicts, [], "the record was never at version 1")
        // If-Match of its version before the batch cannot hold after the earlier group.
        let stale = WriteCondition(collection: "people", id: "x", expectation: .version([try XCTUnwrap(results[1]?.sequence)]))
        let after = commitTogether(store, [([upsert("fifth")], []), ([upsert("sixth")], [stale])])
        XCTAssertEqual(after[1]?.conflicts, ["x"])
    }
}
