import Foundation
import XCTest
@testable import ListModel

/// ``Row``'s one allocation: its fields and its JSON bytes laid out together by
/// `ManagedBufferPointer`, and the fields (strings the row owns) released when the row goes.
final class RowStorageTests: XCTestCase {
    func testFieldsAndBytesReadBackAsMade() {
        let json = Array(#"{"id":"p1","type":"person","title":"Ada","height":44,"action":"app://p1""#.utf8)
        let row = json.withUnsafeBufferPointer {
            Row.make(id: "p1", type: "person", groupKey: "Design", sortKey: .one(.string("Ada")), tagLength: 2,
                     json: $0, headEnd: 26, bodyEnd: 52)
        }
        XCTAssertEqual(row.id, "p1")
        XCTAssertEqual(row.type, "person")
        XCTAssertEqual(row.groupKey, "Design")
        XCTAssertEqual(row.sortKey, .one(.string("Ada")))
        XCTAssertEqual(row.keyHead, SortKey.one(.string("Ada")).head(id: "p1"))
        XCTAssertEqual(row.tagLength, 2)
        XCTAssertEqual([row.jsonCount, row.headEnd, row.bodyEnd], [json.count, 26, 52])
        XCTAssertEqual(row.withJSON { Array(UnsafeBufferPointer(start: $0, count: row.jsonCount)) }, json)
        let same = json.withUnsafeBufferPointer {
            Row.make(id: "p1", type: "person", groupKey: "Design", sortKey: .one(.string("Ada")), tagLength: 2,
                     json: $0, headEnd: 26, bodyEnd: 52)
        }
        XCTAssertTrue(row.sameContent(as: same))
        // The JSON reads back whatever the row keeps of its position before it (a string and the
        // id, the id alone, or nothing).
        for key in [SortKey.none, .one(.int(3)), .many([.string("Ada"), .int(1)]), .one(.string(String(repeating: "é", count: 300)))] {
            let other = json.withUnsafeBufferPointer {
                Row.make(id: "p1", type: "person", groupKey: "Design", sortKey: key, tagLength: 2, json: $0, headEnd: 26, bodyEnd: 52)
            }
            XCTAssertEqual(other.withJSON { Array(UnsafeBufferPointer(start: $0, count: other.jsonCount)) }, json)
            XCTAssertEqual(other.sortKey, key)
            XCTAssertEqual(other.id, "p1")
        }
        let empty = Row.make(id: "", type: "", groupKey: "", sortKey: .none, tagLength: 0,
                             json: UnsafeBufferPointer(start: nil, count: 0), headEnd: 0, bodyEnd: 0)
        XCTAssertEqual(empty.jsonCount, 0)
        XCTAssertFalse(row.sameContent(as: empty))
    }

    /// Rows made and dropped again and again leave resident memory where it was: each row's
    /// strings (here about 110 bytes each, two a row) are released with it. Were they not,
    /// the second and third rounds would leave some 70 MB behind (measured with the release of
    /// the fields taken out of `Row`'s `deinit`: 68,992 KiB).
    func testDroppedRowsReleaseTheirFields() throws {
        func churn() {
            for i in 0..<200_000 {
                let id = String(repeating: "x", count: 100) + String(i)
                let row = Row.forTest(id: id, sortKey: .one(.string(id)))
                XCTAssertEqual(row.id.utf8.count, id.utf8.count)
            }
        }
        churn()
        let before = try residentKiB()
        churn()
        churn()
        XCTAssertLessThan(try residentKiB() - before, 20_000)
    }

    private func residentKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try XCTUnwrap(Int(line.split(separator: " ")[1]))
    }
}
