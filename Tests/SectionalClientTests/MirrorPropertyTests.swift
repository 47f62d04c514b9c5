import Foundation
import SectionalClient
import TestSupport
import XCTest

/// Random writes, deletes, moves (records changing section) and section toggles, then `sync()`:
/// the mirror equals a fresh fetch, and the batch update it returned, applied to the previous
/// mirror by the reference applier (in content mode), gives the new one.
final class MirrorPropertyTests: XCTestCase {
    private let teams = ["Design", "Eng", "Ops", "Archived", "Sales"]
    private let names = ["Ada", "Bob", "Cy", "Dee", "Eve", "Fay", "bot-a", "bot-b", "Gus", "Hal"]

    func testSyncedMirrorEqualsAFreshFetch() async throws {
        for seed: UInt64 in [1, 2, 3] {
            try await run(seed: seed, rounds: 30)
        }
    }

    private func run(seed: UInt64, rounds: Int) async throws {
        let server = try LiveServer()
        let client = SectionalClient(baseURL: server.url)
        let people = client.collection("people")
        let list = client.list("people")
        var random = SplitMix64(seed: seed)
        var ids = Set<String>()
        for i in 0..<12 {
            let id = "p\(i)"
            ids.insert(id)
            try await people.put(id, person(id, names[random.next(below: names.count)], teams[random.next(below: teams.count)]))
        }
        // A mirror with every row loaded (small pages, so several), and one with a few rows loaded.
        let full = list.mirror(pageSize: 4)
        try await full.reload(rows: .max)
        let partial = list.mirror(pageSize: 3)
        try await partial.reload()

        var staleToggles = 0
        for round in 0..<rounds {
            let context = "seed \(seed) round \(round)"
            if random.next(below: 4) == 0 {
                let before = await partial.snapshot?.loadedRowCount ?? 0
                let more = try await partial.loadNext()
                let after = await partial.snapshot?.loadedRowCount ?? 0
                XCTAssertEqual(more, after > before, "\(context): loadNext loads rows while there are placeholders")
            }
            if random.next(below: 3) == 0, let snapshot = await partial.snapshot, snapshot.rowCount > 0 {
                // Load a row somewhere in the partial mirror (synced at the end of the last round, so not stale).
                var n = random.next(below: snapshot.rowCount)
                for (s, section) in snapshot.sections.enumerated() {
                    if n < section.rows.count {
                        let row = try await partial.row(at: ListIndexPath(section: s, row: n))
                        XCTAssertNotNil(row, context)
                        break
                    }
                    n -= section.rows.count
                }
            }

            for _ in 0..<(1 + random.next(below: 3)) {
                switch random.next(below: 10) {
                case 0..<5:   // a write: new record, or an existing one renamed or moved to another team
                    let id = "p\(random.next(below: 18))"
                    ids.insert(id)
                    try await people.put(id, person(id, names[random.next(below: names.count)], teams[random.next(below: teams.count)]))
                case 5..<7:
                    guard let id = ids.sorted().randomElement(using: &random) else { continue }
                    ids.remove(id)
                    try await people.delete(id)
                case 7:
                    let moving = ids.sorted().shuffled(using: &random).prefix(3).map { person($0, names[random.next(below: names.count)], teams[random.next(below: teams.count)]) }
                    try await people.batch(upsert: Array(moving))
                default:   // a toggle through the mirror, checked like a sync
                    guard let before = await full.snapshot, !before.sections.isEmpty else { continue }
                    do {
                        let update = try await full.toggle(section: random.next(below: before.sections.count))
                        try checkApplies(update, to: before, context + " toggle")
                    } catch is ListMirror.Stale {
                        // The writes before it moved that index to another section: nothing changed
                        // (the next sync would reload if the server's view had changed).
                        let after = await full.snapshot
                        XCTAssertEqual(after, before, context)
                        staleToggles += 1
                    }
                }
            }
            guard let before = await full.snapshot else { return XCTFail("no snapshot") }
            let update = try await full.sync()
            XCTAssertFalse(update.changes.reload, "\(context): a small change is animated, not reloaded")
            try checkApplies(update, to: before, context)
            // Sections shown by a toggle come with a page of rows; load the rest.
            while try await full.loadNext() {}
            let fresh = list.mirror(view: await full.view, pageSize: 50)
            let expected = try await fresh.reload(rows: .max).snapshot
            guard let synced = await full.snapshot else { return XCTFail("no snapshot") }
            assertSame(synced, expected, context)
            let partialUpdate = try await partial.sync()
            assertLoadedRowsMatch(partialUpdate.snapshot, try await list.mirror(pageSize: 50).reload(rows: .max).snapshot, context + " partial")
        }
        print("seed \(seed): \(staleToggles) toggles met a list that had moved on")
    }

    /// The reference applier, fed the update's JSON, turns `before` into the update's snapshot.
    private func checkApplies(_ update: ListMirror.Update, to before: ListSnapshot, _ context: String) throws {
        // Content mode: a row is "id|content" (nil: a placeholder), so a row whose content changed,
        // or a placeholder the update loaded, must be listed as updated.
        func outline(_ snapshot: ListSnapshot) -> [ChangesApplier.Section] {
            snapshot.sections.map { section in
                ChangesApplier.Section(key: section.section.key, rows: section.rows.map { row in
                    row.map { "\($0.id)|\($0.type)|\($0.title)|\($0.subtitle ?? "")|\($0.tag.length)|\($0.height)" }
                })
            }
        }
        let json = try JSONEncoder().encode(update.changes)
        do {
            _ = try ChangesApplier.apply(old: outline(before), changes: Array(json), new: outline(update.snapshot), contentMode: true)
        } catch {
            XCTFail("\(context): \(error)\nchanges: \(String(decoding: json, as: UTF8.self))")
        }
    }

    private func assertSame(_ got: ListSnapshot, _ want: ListSnapshot, _ context: String) {
        XCTAssertEqual(got.version, want.version, context)
        XCTAssertEqual(got.sections.map(\.section), want.sections.map(\.section), context)
        for (g, w) in zip(got.sections, want.sections) where g.rows != w.rows {
            XCTFail("\(context): section \(w.section.key):\n got \(g.rows)\nwant \(w.rows)")
        }
    }
}
