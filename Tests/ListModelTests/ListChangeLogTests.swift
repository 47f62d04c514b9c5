import TestSupport
import XCTest
@testable import ListModel

/// ``ListChangeLog``: versions made through ``ListEdit`` answer every pair of versions with a
/// valid batch update, with no id handled by the caller; limits drop the oldest versions.
final class ListChangeLogTests: XCTestCase {
    func testEveryPairOfLoggedVersionsGivesAValidUpdate() throws {
        for seed: UInt64 in 1...6 {
            var rng = SplitMix64(seed: seed)
            var store: [String: [String: JSONObject]] = ["a": [:], "b": [:]]
            var log = ListChangeLog(version: 10, snapshot: ListSnapshot.build(definition: ChangesPropertyTests.def, records: [:]))
            var version: Int64 = 10
            for _ in 0..<24 {
                var edit = log.edit()
                // 1–5 writes per version, some in a collection the list does not read.
                for _ in 0..<(Int.random(in: 0..<3, using: &rng) == 0 ? Int.random(in: 2...5, using: &rng) : 1) {
                    let c = Int.random(in: 0..<4, using: &rng) == 0 ? "b" : "a"
                    let id = "r\(Int.random(in: 0..<24, using: &rng))"
                    if Int.random(in: 0..<5, using: &rng) == 0, store[c]![id] != nil {
                        store[c]![id] = nil
                        edit.apply(.delete(id: id), collection: c)
                    } else {
                        let r = ChangesPropertyTests.record(id, &rng)
                        store[c]![id] = r
                        edit.apply(.upsert(.object(r)), collection: c)
                    }
                    edit.apply(.upsert(["id": "z", "x": 1]), collection: "unread")
                }
                version += Int64.random(in: 1...3, using: &rng)
                log.append(version: version, edit)
            }
            XCTAssertEqual(log.size.versions, 25)
            let fresh = ListSnapshot.build(definition: ChangesPropertyTests.def,
                                           records: store.mapValues { $0.valuesByKey.map { JSONValue.object($0) } })
            XCTAssertEqual(log.latest.snapshot.fullText(), fresh.fullText(), "seed \(seed)")
            for since in stride(from: Int64(10), through: version, by: 2) {
                for target in [since, (since + version) / 2, version] {
                    let at = "seed \(seed) \(since)→\(target)"
                    guard let span = log.changes(since: since, upTo: target, limit: .max) else { XCTFail("no span \(at)"); continue }
                    XCTAssertLessThanOrEqual(span.base.version, since, at)
                    XCTAssertLessThanOrEqual(span.target.version, target, at)
                    guard let u = span.batchUpdate(view: ViewState(), maxChanges: .max) else { XCTFail("no update \(at)"); continue }
                    XCTAssertNoThrow(try ChangesApplier.apply(old: span.base.snapshot.changesOutline(view: ViewState()), update: u,
                                                              new: span.target.snapshot.changesOutline(view: ViewState())), at)
                    XCTAssertNoThrow(try ChangesApplier.apply(old: span.base.snapshot.changesOutline(view: ViewState(), content: true), update: u,
                                                              new: span.target.snapshot.changesOutline(view: ViewState(), content: true),
                                                              contentMode: true), at)
                }
            }
        }
    }

    /// `since` and `upTo` resolve to the newest kept version at or before them (the versions
    /// kept have gaps and the oldest fell out); older than every kept version is a reload.
    func testSinceAndTargetResolveToTheNewestKeptVersionAtOrBefore() {
        let d = definition(#"{"sections":[{"source":"a","key":"k","row":{"title":"{id}"}}]}"#)
        var log = ListChangeLog(version: 1, snapshot: ListSnapshot.build(definition: d, records: [:]), maxVersions: 20)
        var kept: [Int64] = [1]
        var version: Int64 = 1
        for n in 0..<40 {
            var edit = log.edit()
            edit.apply(.upsert(["id": .string("r\(n)")]), collection: "a")
            version += Int64(1 + n % 3)
            log.append(version: version, edit)
            kept.append(version)
        }
        kept = Array(kept.suffix(20))
        XCTAssertEqual(log.size.versions, 20)
        for since in (kept[0] - 2)...(version + 2) {
            let expected = kept.last { $0 <= since }
            let span = log.changes(since: since, limit: .max)
            XCTAssertEqual(span?.base.version, expected, "since \(since)")
            XCTAssertEqual(span?.target.version, expected.map { _ in version }, "since \(since)")
            for target in [since, (since + version) / 2] {
                let at = log.changes(since: since, upTo: target, limit: .max)
                XCTAssertEqual(at?.target.version, expected.map { e in kept.last { $0 <= target }.map { max($0, e) } ?? e },
                               "since \(since) up to \(target)")
            }
        }
    }

    func testLimitsDropTheOldestVersions() {
        let d = definition(#"{"sections":[{"source":"a","key":"k","row":{"title":"{id}"}}]}"#)
        var log = ListChangeLog(version: 1, snapshot: ListSnapshot.build(definition: d, records: [:]), maxVersions: 3, maxWrittenRows: 5)
        func write(_ version: Int64, _ ids: [String]) -> [Int64] {
            var edit = log.edit()
            edit.apply(ids.map { .upsert(["id": .string($0)]) }, collection: "a")
            return log.append(version: version, edit).map(\.version)
        }
        XCTAssertEqual(write(2, ["a"]), [])
        XCTAssertEqual(write(3, ["b"]), [])
        XCTAssertEqual(write(4, ["c", "d", "e"]), [1])  // at most 3 versions
        XCTAssertEqual(log.size.versions, 3)
        XCTAssertEqual(log.size.writtenRows, 5)
        XCTAssertEqual(write(5, ["f", "g"]), [2, 3])    // at most 5 ids: 3 + 2
        XCTAssertNil(log.changes(since: 3, limit: 100))            // older than the log: reload
        XCTAssertNotNil(log.changes(since: 4, limit: 100))
        XCTAssertNil(log.changes(since: 4, limit: 1))              // more ids than the limit
        XCTAssertEqual(log.changes(since: 4, limit: 100)?.batchUpdate(view: ViewState(), maxChanges: 100)?.rows.inserted,
                       [ListIndexPath(section: 0, row: 5), ListIndexPath(section: 0, row: 6)])
        XCTAssertEqual(write(6, ["h", "i", "j", "k", "l", "m"]).count, 2)   // alone over the id limit: only it stays
        XCTAssertEqual(log.size.versions, 1)
        XCTAssertEqual(log.latest.version, 6)
    }
    /// A version whose writes repeat one id counts it once against the written-rows limit: one
    /// record written thousands of times in a batch dropped every earlier version (a client one
    /// version behind reloaded although one row had changed).
    func testAnIdWrittenManyTimesInOneVersionCountsOnce() {
        let d = definition(#"{"sections":[{"source":"a","key":"k","row":{"title":"{n}"}}]}"#)
        var log = ListChangeLog(version: 1, snapshot: ListSnapshot.build(definition: d, records: [:]), maxVersions: 100, maxWrittenRows: 5)
        var edit = log.edit()
        edit.apply([.upsert(["id": "a", "n": 0]), .upsert(["id": "b", "n": 0])], collection: "a")
        XCTAssertEqual(log.append(version: 2, edit).count, 0)
        edit = log.edit()
        edit.apply((1...1_000).map { .upsert(["id": "a", "n": .string("\($0)")]) }, collection: "a")
        XCTAssertEqual(log.append(version: 3, edit).map(\.version), [], "one id written, not a thousand")
        XCTAssertEqual(log.size.writtenRows, 3)
        let update = log.changes(since: 2, limit: 100)?.batchUpdate(view: ViewState(), maxChanges: 100)
        XCTAssertEqual(update?.rows.updated, [ListIndexPath(section: 0, row: 0)])
    }

    /// Hundreds of versions through a log that keeps 20: each append returns exactly the
    /// versions that fell out, oldest first; the log answers from every kept version and not
    /// from a dropped one; and the log holds nothing of a dropped version (its row, replaced in
    /// every later version, is freed once the caller lets the dropped entries go and no kept
    /// version borrows it), also between the times the log tidies its storage.
    func testManyVersionsDropExactlyTheOldestAndFreeThem() {
        final class Watch { weak var row: Row?; init(_ r: Row?) { row = r } }
        let d = definition(#"{"sections":[{"source":"a","key":"k","row":{"title":"{t}"}}]}"#)
        var log = ListChangeLog(version: 1, snapshot: ListSnapshot.build(definition: d, records: [:]), maxVersions: 20)
        var kept: [Int64] = [1]
        var watches: [Int64: Watch] = [:]
        for n in 2...300 {
            let version = Int64(n)
            var edit = log.edit()
            edit.apply(.upsert(["id": .string("x"), "t": .string("title \(n)")]), collection: "a")
            watches[version] = Watch(edit.snapshot.index["x"]?.claims.first?.row)
            let dropped = log.append(version: version, edit).map(\.version)
            kept.append(version)
            let expected = Array(kept.prefix(max(0, kept.count - 20)))
            kept.removeFirst(expected.count)
            XCTAssertEqual(dropped, expected, "version \(version)")
            XCTAssertEqual(log.size.versions, kept.count)
            XCTAssertEqual(log.latest.version, version)
            XCTAssertEqual(log.changes(since: kept[0], limit: .max)?.base.version, kept[0])
            XCTAssertNil(log.changes(since: kept[0] - 1, limit: .max), "version \(version)")
            for v in kept where v > 1 { XCTAssertNotNil(watches[v]?.row, "the row of version \(v), at version \(version)") }
            // A chunk copied from a version's chunk may hold that version's rows (it borrows them,
            // see ``RowChunk``): at most one version more than those kept.
            let alive = watches.filter { $0.value.row != nil }.map(\.key)
            XCTAssertLessThanOrEqual(alive.count, kept.count + 1, "at version \(version)")
            XCTAssertGreaterThanOrEqual(alive.min() ?? version, kept[0] - 1, "at version \(version)")
        }
    }
}
