import ListModel
@testable import SectionalService
import XCTest

/// The answers kept by resident partitions, languages and search results count against
/// `scopes.maxResidentRows` (``AnswerTally``) and in `/metrics`: they were outside both, so
/// 6,000 made-up users reading 60 page sizes each held 1.1 GB while the budget counted 3.6%.
final class ResidentAnswersTests: XCTestCase {

    private func key(_ user: String) -> MaterializationKey {
        MaterializationKey(list: "items", partition: PartitionKey(.string(user)))
    }

    /// Reads that fill resident partitions' answer caches evict the least recently read, with no
    /// install to trigger it; an evicted partition's answers leave the tally when it is evicted,
    /// not when the reaper frees it (else the eviction loop, seeing them still counted, evicts on).
    func testAnswersOfResidentPartitionsAreChargedAndLeaveWithThem() throws {
        let definition = try XCTUnwrap(ItemsList.definition)
        let budget = 100 * MaterializationCache.rowsPerEntry
        let cache = MaterializationCache(maxResidentRows: budget)
        let users = (0..<100).map { "u\($0)" }
        for user in users {
            let state = ListState(snapshot: ListSnapshot.build(definition: definition, records: ["items": []]), version: 1,
                                  partition: PartitionKey(.string(user)))
            XCTAssertNotNil(cache.install(key(user), state: state))
        }
        XCTAssertEqual(cache.statistics.partitions, 100, "empty partitions alone fit")
        // 20 answers of 1,000 bytes each: about 36 rows a partition on top of its 12. Those not read
        // yet are the least recently read, so they go first.
        var read = 0
        for user in users {
            guard let state = cache.read(key(user)) else { continue }
            read += 1
            for page in 0..<20 {
                _ = state.answers.answer(for: AnswerCache.Key(kind: "page", size: page)) {
                    AnswerCache.Answer(body: [UInt8](repeating: 0x20, count: 1000))
                }
            }
        }
        XCTAssertLessThan(read, 100, "answers made room by evicting partitions")
        let statistics = cache.statistics
        XCTAssertLessThan(statistics.partitions, 40, "answers took room from partitions")
        XCTAssertGreaterThan(statistics.partitions, 10, "but did not evict far past the budget")
        XCTAssertLessThanOrEqual(statistics.rows + statistics.partitions * MaterializationCache.rowsPerEntry + cache.answers.rows, budget)
        let resident = users.compactMap { cache.peek(key($0))?.answers.usage }
        XCTAssertEqual(resident.count, statistics.partitions)
        XCTAssertEqual(cache.answers.usage.bytes, resident.reduce(0) { $0 + $1.bytes }, "the tally is the resident caches' bytes")
        XCTAssertEqual(cache.answers.usage.entries, resident.reduce(0) { $0 + $1.entries })
    }

    /// The entry whose answer took the budget past stays, alone if it must: it was evicted by its
    /// own answer, so a partition that fits the budget but not with a page of it kept was built
    /// again on every read (and `changes` from its last version answered `reload`).
    func testTheEntryThatKeptAnAnswerStaysThoughItAloneIsPastTheBudget() throws {
        let definition = try XCTUnwrap(ItemsList.definition)
        let cache = MaterializationCache(maxResidentRows: 2 * MaterializationCache.rowsPerEntry)
        for user in ["old", "new"] {
            let state = ListState(snapshot: ListSnapshot.build(definition: definition, records: ["items": []]), version: 1,
                                  partition: PartitionKey(.string(user)))
            XCTAssertNotNil(cache.install(key(user), state: state))
        }
        XCTAssertNotNil(cache.read(key("old")))
        let state = try XCTUnwrap(cache.read(key("new")))
        _ = state.answers.answer(for: AnswerCache.Key(kind: "page", size: 1)) {
            AnswerCache.Answer(body: [UInt8](repeating: 0x20, count: 30 * AnswerTally.bytesPerRow))
        }
        XCTAssertNil(cache.peek(key("old")), "the least recently read made room")
        XCTAssertNotNil(cache.peek(key("new")), "the one read last stays, larger than the budget, alone")
        XCTAssertEqual(cache.statistics.partitions, 1)
    }

    /// Over HTTP: made-up users' pages (gzip accepted) are evicted by their answers' memory, and
    /// `/metrics` counts their answers.
    func testUsersPagesCountAgainstTheBudgetAndInMetrics() throws {
        let budget = 1200
        let orders = try PartitionApp(maxResidentRows: budget)
        for user in 0..<60 {
            for size in 1...20 {
                try orders.get("/v1/lists/orders/rows?pageSize=\(size)", as: "ghost\(user)",
                               headers: [("Accept-Encoding", "gzip")]).expect(200...200)
            }
        }
        let metrics = try orders.app.get("/metrics").text
        let partitions = try XCTUnwrap(metricValue(metrics, #"sectional_partitions_resident{kind="partition"}"#), metrics)
        let rows = try XCTUnwrap(metricValue(metrics, #"sectional_partition_rows_resident{kind="partition"}"#), metrics)
        let entries = try XCTUnwrap(metricValue(metrics, "sectional_answer_cache_entries"), metrics)
        let bytes = try XCTUnwrap(metricValue(metrics, "sectional_answer_cache_bytes"), metrics)
        XCTAssertLessThan(partitions, 30, "60 users' partitions of 20 answers each do not all fit 1,200 rows\n\(metrics)")
        XCTAssertGreaterThanOrEqual(entries, partitions * 10, "the resident partitions' answers are counted\n\(metrics)")
        XCTAssertLessThanOrEqual(rows + partitions * Double(MaterializationCache.rowsPerEntry)
                                     + (bytes / Double(AnswerTally.bytesPerRow)).rounded(.down), Double(budget), metrics)
    }
}
