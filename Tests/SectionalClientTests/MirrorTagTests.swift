import Foundation
import SectionalClient
import TestSupport
import XCTest

/// A partly loaded mirror keeps its held rows' tag locations right when a row before them changes
/// its tag length in place (a record switching `kind` to a row type with another `tagLength`):
/// after `sync()`, every row it holds equals the row a full fetch gives.
final class MirrorTagTests: XCTestCase {
    /// A people record; `bot` rows hold one tag, the others two (`LiveServer.config`).
    private func record(_ id: String, _ name: String, _ team: String, bot: Bool) -> JSON {
        var record: [String: JSON] = ["id": .string(id), "name": .string(name), "team": .string(team), "email": .string("\(id)@example.com")]
        if bot { record["kind"] = "bot" }
        return .object(record)
    }

    /// Section 1 holds g0 g1 · · · · g6 g7 g8; g0 becomes a bot (tag length 2 → 1) in its place.
    func testHeldRowsAfterAPlaceholderFollowAnInPlaceTagLengthChange() async throws {
        let server = try LiveServer()
        let client = SectionalClient(baseURL: server.url)
        let people = client.collection("people"), list = client.list("people")
        _ = try await people.batch(upsert: (0..<9).map { record("g\($0)", "A\($0)", "Eng", bot: false) })
        let mirror = list.mirror(pageSize: 3)
        try await mirror.reload()                                           // me, g0, g1
        _ = try await mirror.row(at: ListIndexPath(section: 1, row: 7))     // g6, g7, g8
        _ = try await people.patch("g0", ["kind": "bot"])
        let update = try await mirror.sync()
        XCTAssertEqual(update.changes.rows.updated, [ListIndexPath(section: 1, row: 0)], "an update in place")
        XCTAssertEqual(update.snapshot.sections[1].rows.compactMap { $0?.id }, ["g0", "g1", "g6", "g7", "g8"])
        let fresh = try await list.mirror(pageSize: 50).reload(rows: .max).snapshot
        assertLoadedRowsMatch(update.snapshot, fresh, "after g0's tag length changed")
    }

    /// A row the mirror never loaded, updated in place, stays a placeholder: the sync reads the
    /// diff and the outline, nothing more (each such row was fetched: a batch changing 900 rows
    /// nobody scrolled to sent 900 requests, every other operation of the mirror waiting).
    func testASyncFetchesNoRowTheMirrorNeverLoaded() async throws {
        let server = try LiveServer()
        let requests = Counter()
        let client = SectionalClient(baseURL: server.url) { _ = requests.increment(); return nil }
        let people = client.collection("people"), list = client.list("people")
        _ = try await people.batch(upsert: (0..<9).map { record("g\($0)", "A\($0)", "Eng", bot: false) })
        let mirror = list.mirror(pageSize: 3)
        try await mirror.reload()                                           // me, g0, g1
        _ = try await people.patch("g7", ["kind": "bot"])
        let before = requests.value
        let update = try await mirror.sync()
        XCTAssertEqual(update.changes.rows.updated, [ListIndexPath(section: 1, row: 7)], "an update in place")
        XCTAssertEqual(requests.value - before, 2, "the diff and the outline only")
        XCTAssertNil(update.snapshot.sections[1].rows[7])
        let row = try await mirror.row(at: ListIndexPath(section: 1, row: 7))
        XCTAssertEqual(row?.title, "A7 (bot)")
    }

    /// Random `kind` flips (in place: names never change), writes, team moves and deletes, with
    /// rows loaded here and there in a mirror of small pages: after each sync, every held row equals
    /// the full fetch's.
    func testHeldRowsKeepTheirTagsAfterRandomEdits() async throws {
        for seed: UInt64 in [1, 2, 3, 4] {
            try await run(seed: seed, rounds: 12)
        }
    }

    private func run(seed: UInt64, rounds: Int) async throws {
        let server = try LiveServer()
        let client = SectionalClient(baseURL: server.url)
        let people = client.collection("people"), list = client.list("people")
        let teams = ["Design", "Eng"]
        var random = SplitMix64(seed: seed)
        var bots: [String: Bool] = [:]
        let name = { (i: Int) in "N\(i < 10 ? "0" : "")\(i)" }   // sorts as the ids do
        for i in 0..<16 {
            bots["t\(i)"] = random.next(below: 3) == 0
        }
        _ = try await people.batch(upsert: (0..<16).map { record("t\($0)", name($0), teams[random.next(below: 2)], bot: bots["t\($0)"] ?? false) })
        let mirror = list.mirror(pageSize: 2)
        try await mirror.reload()
        for round in 0..<rounds {
            let context = "seed \(seed) round \(round)"
            guard let snapshot = await mirror.snapshot else { return XCTFail("no snapshot") }
            for _ in 0..<2 where snapshot.rowCount > 0 {
                // A row somewhere (the mirror was synced at the end of the last round: not stale).
                var n = random.next(below: snapshot.rowCount)
                for (s, section) in snapshot.sections.enumerated() {
                    if n < section.rows.count {
                        _ = try await mirror.row(at: ListIndexPath(section: s, row: n))
                        break
                    }
                    n -= section.rows.count
                }
            }
            for _ in 0..<(1 + random.next(below: 3)) {
                let i = random.next(below: 20), id = "t\(i)"
                switch random.next(below: 6) {
                case 0..<4 where bots[id] != nil:   // a kind flip: the row stays, its tag length changes
                    let bot = !(bots[id] ?? false)
                    bots[id] = bot
                    _ = try await people.patch(id, ["kind": bot ? JSON.string("bot") : JSON.null])
                case 5 where bots[id] != nil:
                    bots[id] = nil
                    try await people.delete(id)
                default:                            // a new record, or one moved to a team (maybe its own)
                    let bot = random.next(below: 2) == 0
                    bots[id] = bot
                    _ = try await people.put(id, record(id, name(i), teams[random.next(below: 2)], bot: bot))
                }
            }
            let update = try await mirror.sync()
            let fresh = try await list.mirror(pageSize: 50).reload(rows: .max).snapshot
            assertLoadedRowsMatch(update.snapshot, fresh, context)
        }
    }
}
