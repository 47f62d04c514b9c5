import Dispatch
import Foundation
import ListModel
@testable import SectionalService
import Locking
import Synchronization
import XCTest

/// The materialization cache on its own: lock-free reads of a published table (racing writes,
/// installs and evictions), recency for eviction, and the budget.
final class MaterializationCacheTests: XCTestCase {

    /// A state of `rows` rows whose ids name `version` ("v7-0", "v7-1", …), so a reader can tell
    /// a snapshot and a version that do not belong together.
    private func state(version: Int64, rows: Int = 1, partition: String? = nil) throws -> ListState {
        let definition = try XCTUnwrap(ItemsList.definition, "the test definition does not decode")
        let records = (0..<rows).map { row -> JSONValue in ["id": .string("v\(version)-\(row)")] }
        return ListState(snapshot: ListSnapshot.build(definition: definition, records: ["items": records]), version: version,
                         partition: partition.flatMap { PartitionKey(.string($0)) })
    }

    private func key(_ user: String?) -> MaterializationKey {
        MaterializationKey(list: "items", partition: user.flatMap { PartitionKey(.string($0)) })
    }

    /// Whether a state's snapshot is the one its version was built with.
    private static func consistent(_ state: ListState) -> Bool {
        state.snapshot.contains(rowID: "v\(state.version)-0")
    }

    func testTheLeastRecentlyReadPartitionIsEvictedFirst() throws {
        // Room for three partitions of one row each (each also counts its entry's share).
        let cache = MaterializationCache(maxResidentRows: 3 * (1 + MaterializationCache.rowsPerEntry))
        for user in ["a", "b", "c"] {
            XCTAssertNotNil(cache.install(key(user), state: try state(version: 1, partition: user)))
        }
        // Read order a, b, c, then a again: b is now the least recently read.
        for user in ["a", "b", "c", "a", "a"] { XCTAssertNotNil(cache.read(key(user))) }
        XCTAssertNotNil(cache.install(key("d"), state: try state(version: 1, partition: "d")))
        XCTAssertNil(cache.read(key("b")), "b, read least recently, is evicted")
        for user in ["a", "c", "d"] { XCTAssertNotNil(cache.read(key(user)), "\(user) stays") }
        XCTAssertEqual(cache.statistics.rows, 3)
        XCTAssertEqual(cache.statistics.evictions, 1)
    }

    /// Partitions and results with no rows still count against the budget: reads by made-up users
    /// (or searches that match nothing) cannot fill memory unevicted.
    func testEntriesWithNoRowsAreEvictedUnderTheBudget() throws {
        let cache = MaterializationCache(maxResidentRows: 10 * MaterializationCache.rowsPerEntry)
        for user in 0..<100 {
            XCTAssertNotNil(cache.install(key("u\(user)"), state: try state(version: 1, rows: 0, partition: "u\(user)")))
        }
        XCTAssertLessThanOrEqual(cache.statistics.partitions, 10)
        XCTAssertGreaterThanOrEqual(cache.statistics.evictions, 90)
        XCTAssertNotNil(cache.read(key("u99")), "the last one installed stays")
    }

    /// A list keeps at most ``MaterializationCache/maxResultsPerList`` search results (a write
    /// moves each): past it the least recently read of that list's results goes, even with
    /// room in the budget, and another list's results stay.
    func testAListKeepsABoundedNumberOfSearchResults() throws {
        let cache = MaterializationCache(maxResidentRows: 1_000_000)
        func result(_ text: String, user: String? = nil) -> MaterializationKey {
            MaterializationKey(list: "items", partition: user.flatMap { PartitionKey(.string($0)) },
                               query: ListQuery(text: text, filters: [], searchFields: []))
        }
        let limit = MaterializationCache.maxResultsPerList
        XCTAssertNotNil(cache.install(result("other", user: "z"), state: try state(version: 1, rows: 0, partition: "z")))
        for n in 0..<limit { XCTAssertNotNil(cache.install(result("q\(n)"), state: try state(version: 1, rows: 0))) }
        XCTAssertNotNil(cache.read(result("q0")), "read: q1 is now the least recently read")
        XCTAssertNotNil(cache.install(result("q\(limit)"), state: try state(version: 1, rows: 0)))
        XCTAssertNil(cache.read(result("q1")), "the least recently read result of the list is evicted")
        XCTAssertNotNil(cache.read(result("q0")))
        XCTAssertNotNil(cache.read(result("q\(limit)")))
        XCTAssertNotNil(cache.read(result("other", user: "z")), "another partition's results are not counted with these")
        XCTAssertEqual(cache.statistics.partitions, limit + 1)
        XCTAssertEqual(cache.statistics.evictions, 1)
    }

    /// The writer edits a partition's history; before it publishes, the partition is evicted and
    /// a reader's build from before the commit is installed again. Publishing the writer's state
    /// over that entry paired it with a history without the commit: `changes` from the version
    /// before said nothing changed, and the next write edited from that history and lost the
    /// commit. The entry is dropped instead, to be built again at the published version.
    func testAPublishDropsAPartitionThatLeftAndCameBackWhileTheWriterMovedIt() throws {
        // Room for one partition of one row.
        let cache = MaterializationCache(maxResidentRows: 1 + MaterializationCache.rowsPerEntry)
        XCTAssertNotNil(cache.install(key("u"), state: try state(version: 9, partition: "u")))
        let edited = try XCTUnwrap(cache.historyToEdit(key("u")), "the writer takes u's history")
        XCTAssertNotNil(cache.install(key("v"), state: try state(version: 9, partition: "v")))
        XCTAssertNil(cache.read(key("u")), "u is evicted for v")
        XCTAssertNotNil(cache.install(key("u"), state: try state(version: 9, partition: "u")), "a reader's build from before the commit")
        XCTAssertFalse(cache.history(key("u")) === edited)

        cache.publish([key("u"): try state(version: 10, partition: "u")], partitionVersions: [key("u"): 10])
        XCTAssertNil(cache.read(key("u")), "not the entry the writer moved: dropped, not given version 10")
        XCTAssertNil(cache.install(key("u"), state: try state(version: 9, partition: "u")), "built again, from version 10 on")
        XCTAssertEqual(cache.statistics.partitions, 0)
        XCTAssertEqual(cache.statistics.rows, 0)

        // The entry the writer edited is moved as before.
        XCTAssertNotNil(cache.install(key("w"), state: try state(version: 10, partition: "w")))
        _ = cache.historyToEdit(key("w"))
        cache.publish([key("w"): try state(version: 11, partition: "w")], partitionVersions: [key("w"): 11])
        XCTAssertEqual(cache.read(key("w"))?.version, 11)
    }

    func testAReadAfterAPublishSeesIt() throws {
        let cache = MaterializationCache(maxResidentRows: 100)
        cache.pin(key(nil), state: try state(version: 1))
        XCTAssertEqual(cache.read(key(nil))?.version, 1)
        for version in Int64(2)...20 {
            cache.publish([key(nil): try state(version: version)], partitionVersions: [:])
            let read = try XCTUnwrap(cache.read(key(nil)))
            XCTAssertEqual(read.version, version, "this thread's table from before the publish is not used after it")
            XCTAssertTrue(Self.consistent(read))
        }
    }

    /// Whole lists are found by name: each its own, a replaced one at its new state, a removed one
    /// no more, and a partition of the same name is not taken for the whole list.
    func testWholeListsAreReadByNameThroughReplacementAndRemoval() throws {
        let cache = MaterializationCache(maxResidentRows: 100)
        let other = MaterializationKey(list: "others", partition: nil)
        cache.pin(key(nil), state: try state(version: 1))
        cache.pin(other, state: try state(version: 2))
        XCTAssertNotNil(cache.install(key("a"), state: try state(version: 5, partition: "a")))
        XCTAssertEqual(cache.read(key(nil))?.version, 1)
        XCTAssertEqual(cache.read(other)?.version, 2)
        XCTAssertEqual(cache.read(key("a"))?.version, 5)
        cache.replaceList("items", with: try state(version: 3), epoch: 1)
        XCTAssertEqual(cache.read(key(nil))?.version, 3)
        XCTAssertNil(cache.read(key("a")), "the list's partitions go with its old definition")
        cache.replaceList("items", with: nil, epoch: 2)
        XCTAssertNil(cache.read(key(nil)))
        XCTAssertNil(cache.read(MaterializationKey(list: "items", partition: nil, language: "fr")))
        XCTAssertEqual(cache.read(other)?.version, 2)
    }

    /// One thread reading two caches in turn (as tests and a reload do) never gets one cache's
    /// state from the other's table, though both have published as often.
    func testOneThreadReadingTwoCachesGetsEachOnesState() throws {
        let first = MaterializationCache(maxResidentRows: 100), second = MaterializationCache(maxResidentRows: 100)
        first.pin(key(nil), state: try state(version: 1))
        second.pin(key(nil), state: try state(version: 2))
        for _ in 0..<3 {
            XCTAssertEqual(first.read(key(nil))?.version, 1)
            XCTAssertEqual(second.read(key(nil))?.version, 2)
        }
        first.publish([key(nil): try state(version: 3)], partitionVersions: [:])
        XCTAssertEqual(first.read(key(nil))?.version, 3)
        XCTAssertEqual(second.read(key(nil))?.version, 2)
    }

    /// Readers on several threads, a writer publishing new versions of a pinned list and of a
    /// partition, and a builder installing partitions past the budget (evicting others), all at
    /// once: every state read is whole (its snapshot is its version's), never older than what the
    /// writer had published before the read began, and never older than what that reader saw
    /// before; the budget holds throughout.
    func testReadsRacingWritesAndEvictionsAreAlwaysOfOneConsistentVersion() throws {
        let budget = 12
        let cache = MaterializationCache(maxResidentRows: budget)
        let pinned = key(nil), hot = key("hot")
        cache.pin(pinned, state: try state(version: 1, rows: 3))
        XCTAssertNotNil(cache.install(hot, state: try state(version: 1, rows: 2, partition: "hot")))
        let rounds: Int64 = 400
        var states: [Int64: (pinned: ListState, hot: ListState)] = [:]
        for version in 2...rounds { states[version] = (try state(version: version, rows: 3), try state(version: version, rows: 2, partition: "hot")) }
        let cold = try (0..<40).map { try state(version: 1, rows: 1, partition: "u\($0)") }
        let race = Race()
        let group = DispatchGroup()
        func spawn(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            let thread = Thread { body(); group.leave() }
            thread.start()
        }
        let frozen = states, coldStates = cold
        spawn {
            for version in 2...rounds {
                guard let next = frozen[version] else { continue }
                cache.publish([pinned: next.pinned, hot: next.hot], partitionVersions: [hot: version])
                race.published.store(version, ordering: .releasing)
            }
            race.done.store(true, ordering: .releasing)
        }
        spawn {
            var n = 0
            while !race.done.load(ordering: .acquiring) || n < 200 {
                let state = coldStates[n % coldStates.count]
                _ = cache.install(state.key, state: state)
                if cache.statistics.rows > budget { race.overBudget.add(1, ordering: .relaxed) }
                n += 1
            }
        }
        for reader in 0..<3 {
            spawn {
                var seen: [MaterializationKey: Int64] = [:]
                var n = 0
                while !race.done.load(ordering: .acquiring) || n < 100 {
                    let floor = race.published.load(ordering: .acquiring)
                    for key in [pinned, hot, coldStates[(n + reader) % coldStates.count].key] {
                        guard let state = cache.read(key) else {
                            if key == pinned { race.failures.withLock { $0.append("the pinned list was not found") } }
                            continue
                        }
                        var problems: [String] = []
                        if !Self.consistent(state) { problems.append("\(key): version \(state.version) with another version's snapshot") }
                        if key == pinned, state.version < floor {
                            problems.append("pinned: read version \(state.version) after \(floor) was published")
                        }
                        if let last = seen[key], state.version < last { problems.append("\(key): version \(state.version) after \(last)") }
                        seen[key] = state.version
                        if !problems.isEmpty { race.failures.withLock { $0.append(contentsOf: problems) } }
                    }
                    n += 1
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success, "the threads did not finish")
        XCTAssertEqual(race.failures.withLock { Array($0.prefix(5)) }, [])
        XCTAssertEqual(race.overBudget.load(ordering: .relaxed), 0, "the resident rows stayed within the budget")
        XCTAssertEqual(cache.read(pinned)?.version, rounds)
        XCTAssertGreaterThan(cache.statistics.evictions, 0, "the builder evicted partitions while they were read")
    }

    /// What the threads of a race share.
    private final class Race: Sendable {
        /// The last version the writer has published.
        let published = Atomic<Int64>(1)
        let done = Atomic<Bool>(false)
        let failures = Locked<[String]>([])
        let overBudget = Atomic<Int>(0)
    }
}
