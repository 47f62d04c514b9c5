import XCTest
@testable import ListModel

/// The id index across its forms: small, sharded, and sharded again with more shards as it grows.
final class IdIndexTests: XCTestCase {
    /// Enough ids to pass the small form and two doublings of the shards (at 64 × 64 × 32 and
    /// twice that), set one at a time, then half removed: every id is found with its own row,
    /// a snapshot taken before each change keeps what it held, and the count follows.
    func testGrowingThroughReshardsKeepsEveryEntry() {
        let n = 64 * 64 * IdIndex.shardTarget * 2 + 1_000
        let rows = (0..<n).map { Row.forTest(id: "id-\($0)") }
        var index = IdIndex()
        var early: IdIndex?
        for (i, r) in rows.enumerated() {
            index.set(r.id, IdEntry(single: Claim(spec: 0, row: r)))
            if i == 100_000 { early = index }
        }
        XCTAssertEqual(index.count, n)
        for r in rows { XCTAssert(index[r.id]?.owner.row === r, "\(r.id) lost") }
        XCTAssertNil(index["id-\(n)"])
        for r in rows.prefix(n / 2) { index.set(r.id, nil) }
        XCTAssertEqual(index.count, n - n / 2)
        for (i, r) in rows.enumerated() {
            XCTAssertEqual(index[r.id] == nil, i < n / 2, "\(r.id) after removals")
        }
        let kept = early!
        XCTAssertEqual(kept.count, 100_001)
        for (i, r) in rows.enumerated() where i % 97 == 0 {
            XCTAssertEqual(kept[r.id]?.owner.row === r, i <= 100_000, "\(r.id) in the early copy")
        }
    }

    /// Claims made in parallel (a build) land where single look-ups find them, also when the
    /// claim itself makes the index reshard; a second spec's claims on the same ids count as
    /// duplicates.
    func testParallelClaimsAfterReshardAreFound() {
        let n = 64 * 64 * IdIndex.shardTarget + 5_000
        let rows = (0..<n).map { Row.forTest(id: "p-\($0)") }
        let parts = stride(from: 0, to: n, by: 20_000).map { ContiguousArray(rows[$0..<min($0 + 20_000, n)]) }
        var index = IdIndex()
        for r in rows.prefix(200) { index.set(r.id, IdEntry(single: Claim(spec: 0, row: r))) }
        let first = index.claim(parts, spec: 0, parallelism: .threads)
        XCTAssertEqual(first.duplicates, 0)
        XCTAssertEqual(first.owned.joined().filter { !$0 }.count, 200, "the 200 set before keep their claim")
        XCTAssertEqual(index.count, n)
        for r in rows { XCTAssertNotNil(index[r.id], r.id) }
        let second = index.claim([ContiguousArray(rows.prefix(30_000).map { Row.forTest(id: $0.id) })], spec: 1, parallelism: .threads)
        XCTAssertEqual(second.duplicates, 30_000)
        XCTAssertEqual(index["p-7"]?.count, 2)
        XCTAssertEqual(index["p-\(n - 1)"]?.count, 1)
    }
}
