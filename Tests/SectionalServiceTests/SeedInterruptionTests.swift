import Foundation
import ListModel
import ListStore
@testable import SectionalService
import TestSupport
import XCTest

/// A seed is all or nothing: a start that stops part-way through one (here the disk fills) leaves
/// the collection empty, so the next start seeds it whole, instead of serving a part for good.
final class SeedInterruptionTests: FolderTestCase {
    func testASeedThatFailsPartWayIsSeededWholeAtTheNextStart() throws {
        let count = 15_000
        let seed = folder.appendingPathComponent("people.json")
        let records = (0..<count).map { #"{"id":"p\#($0)","name":"Person \#($0)"}"# }
        try Data(("[" + records.joined(separator: ",") + "]").utf8).write(to: seed)
        let path = folder.appendingPathComponent("seed.sqlite").path
        let log = Log(level: .error)

        // The first start: the disk holds 12,000 records, fewer than the seed.
        let store = try SQLiteStore(path: path)
        XCTAssertThrowsError(try Seeder.seed([("people", seed.path)], into: FullDiskStore(store, capacity: 12_000), log: log)) { error in
            XCTAssertTrue("\(error)".contains("seed.people"), "\(error)")
        }
        XCTAssertEqual(try store.allRecords(in: "people").count, 0, "nothing of a seed that did not finish")
        store.close()

        // The next start, with room: the whole seed.
        let restarted = try SQLiteStore(path: path)
        defer { restarted.close() }
        try Seeder.seed([("people", seed.path)], into: restarted, log: log)
        XCTAssertEqual(try restarted.allRecords(in: "people").count, count)
    }
}
