import ListStore
import TestSupport
import XCTest
@testable import ListModel
@testable import SectionalService

/// A large batch's list edit is made while the store commits it, and used only from the list
/// history it was made from, still at the version the edit started from.
final class EditsAheadTests: XCTestCase {
    private static func definitions() throws -> [ListDefinition] {
        try ListDefinitions.decode(JSONParser.parse(#"""
        {"people":{"sections":[{"source":"people","groupBy":"team","sortBy":[{"field":"name"}],"row":{"title":"{name}"}}]}}
        """#))
    }

    /// Two view-model stores on one PostgreSQL database, as two instances, and no follower: the
    /// second's commit comes after a version it has not applied, so it applies that version
    /// first and must drop the edit it made ahead from the version before.
    func testAnEditMadeAheadIsDroppedWhenAnotherInstancesVersionComesFirst() throws {
        let database = try PostgresTestDatabase(cluster: try PostgresTestDatabase.clusterURL())
        defer { database.drop() }
        let first = try ViewModelStore(definitions: try Self.definitions(), store: try PostgresStore(url: database.url), log: Log(level: .error))
        let second = try ViewModelStore(definitions: try Self.definitions(), store: try PostgresStore(url: database.url), log: Log(level: .error))
        try commit(first, batch(prefix: "a", team: "Design"))
        try commit(second, batch(prefix: "b", team: "Sales"))
        let list = try XCTUnwrap(second.list("people"))
        XCTAssertEqual(list.version, 2)
        XCTAssertEqual(list.snapshot.totalRowCount, 600, "the first instance's batch, then its own")
        XCTAssertEqual(list.snapshot.sectionCount, 2)
        // Its own large batches from then on are made ahead and used.
        try commit(second, batch(prefix: "a", team: "Sales"))
        let moved = try XCTUnwrap(second.list("people")).snapshot
        XCTAssertEqual(moved.totalRowCount, 600)
        XCTAssertEqual(moved.sectionCount, 1, "every row moved to Sales")
    }

    /// `EditsAhead.take` gives an edit only from the history it was made from, at the version
    /// it started from.
    func testAnEditIsTakenOnlyFromTheHistoryAndVersionItStartedFrom() throws {
        let empty = ListSnapshot.build(definition: try Self.definitions()[0], records: ["people": []])
        let history = ListHistory(version: 7, snapshot: empty)
        let key = MaterializationKey(list: "people", partition: nil)
        let made = history.edit()
        XCTAssertNotNil(EditsAhead { [key: (history, made)] }.take(key, from: history))
        let redefined = ListHistory(version: 7, snapshot: empty)
        XCTAssertNil(EditsAhead { [key: (history, made)] }.take(key, from: redefined), "the list was made anew")
        history.append(version: 8, history.edit())
        XCTAssertNil(EditsAhead { [key: (history, made)] }.take(key, from: history), "the list moved on")
        XCTAssertNil(EditsAhead { [:] }.take(key, from: history), "no edit made for the list")
    }

    /// 300 upserts of `prefix`0…299 in `team` (enough to be made ahead).
    private func batch(prefix: String, team: String) -> [ViewModelStore.Write] {
        (0..<300).map { i in
            var record = JSONObject()
            record["id"] = .string("\(prefix)\(i)")
            record["name"] = .string("N\(i % 17)")
            record["team"] = .string(team)
            return .upsert(collection: "people", record: IncomingRecord(id: "\(prefix)\(i)", object: record))
        }
    }
}
