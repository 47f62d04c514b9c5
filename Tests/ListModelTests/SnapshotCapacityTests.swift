import XCTest
@testable import ListModel

/// A derived snapshot's arrays are sized to their contents, never to the capacity of the
/// buffers it shares with the snapshot it came from. (Inheriting capacity let it ratchet up
/// write after write — glibc sometimes hands out a slightly larger block, whose spare room
/// becomes capacity — until every history version held kilobytes of unused prefix sums.)
final class SnapshotCapacityTests: XCTestCase {
    let d = definition(#"""
    {"sections":[{"source":"a","groupBy":"g","sortBy":[{"field":"n"}],"row":{"title":"{id}","tagLength":2}}]}
    """#)

    func snapshot() -> ListSnapshot {
        let rows = (0..<300).map { i -> JSONValue in ["id": .string("r\(i)"), "g": .string("g\(i % 3)"), "n": .int(Int64(i))] }
        return ListSnapshot.build(definition: d, records: ["a": rows])
    }

    func testSectionPrefixSumsDoNotInheritCapacity() {
        var base = snapshot()
        base.tagStarts.reserveCapacity(100_000)
        base.rowStarts.reserveCapacity(100_000)
        let next = base.applying(.upsert(["id": "r1", "g": "g2", "n": 1]), collection: "a")
        XCTAssertEqual(next.sectionCount, 3)
        XCTAssertLessThan(next.tagStarts.capacity, 64, "capacity inherited from the shared buffer")
        XCTAssertLessThan(next.rowStarts.capacity, 64, "capacity inherited from the shared buffer")
        XCTAssertGreaterThanOrEqual(base.tagStarts.capacity, 100_000, "the old snapshot keeps its own buffer")
    }

    func testCopiedRowChunksDoNotInheritCapacity() {
        var base = snapshot()
        for i in base.sections.indices {
            base.sections[i].rows.replaceChunks(base.sections[i].rows.chunks.map { $0.copy(capacity: 100_000) })
        }
        // An insert into a chunk the old snapshot still holds copies that chunk.
        let next = base.applying(.upsert(["id": "new", "g": "g0", "n": 0.5]), collection: "a")
        let copied = next.sections.flatMap { $0.rows.chunks }.filter { chunk in !base.sections.contains { $0.rows.chunks.contains { $0 === chunk } } }
        XCTAssertFalse(copied.isEmpty, "the insert copied a chunk")
        for chunk in copied {
            XCTAssertLessThan(chunk.rowCapacity, 1_000, "capacity inherited from the shared chunk")
        }
        XCTAssertEqual(next.totalRowCount, 301)
    }
}
