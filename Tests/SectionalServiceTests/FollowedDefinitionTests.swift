import ListStore
import Locking
import TestSupport
import XCTest
@testable import ListModel
@testable import SectionalService

/// A run-time definition change made on one instance, followed by another on the same
/// PostgreSQL database from the change log while the first keeps writing: the follower serves,
/// at each version, the body the instance that made the change served at that version, under
/// the definition in force at it — in every language and partition. And a state a reader
/// builds while the follower applies a batch of commits (a language, a partition, a search
/// result) is never moved past a commit of the batch it lacks; a conditional change is judged by
/// the stored definition, not the one an instance behind still serves.
final class FollowedDefinitionTests: XCTestCase {
    private static let config = #"""
    {"people":{"title":{"en":"O","de":"Ode"},"languages":["en","de"],"search":{"fields":["name"]},
               "sections":[{"source":"people","groupBy":"team","title":"{$key} ({$count})","row":{"title":"{name}"}}]},
     "orders":{"title":"O","scope":{"field":"owner","claim":"sub"},
               "sections":[{"source":"orders","groupBy":"status","row":{"title":"{title}"}}]}}
    """#

    /// `people` grouped by team under the title `title` (in German `title`de).
    private static func people(_ title: String) throws -> ListDefinition {
        try ListDefinitions.decode(name: "people", JSONParser.parse(#"""
            {"title":{"en":"\#(title)","de":"\#(title)de"},"languages":["en","de"],
             "sections":[{"source":"people","groupBy":"team","title":"\#(title) {$key} ({$count})","row":{"title":"{name}"}}]}
            """#), path: "$")
    }

    /// `orders` per owner under the title `title`.
    private static func orders(_ title: String) throws -> ListDefinition {
        try ListDefinitions.decode(name: "orders", JSONParser.parse(#"""
            {"title":"\#(title)","scope":{"field":"owner","claim":"sub"},
             "sections":[{"source":"orders","groupBy":"status","row":{"title":"{title}"}}]}
            """#), path: "$")
    }

    private func stores() throws -> (PostgresTestDatabase, ViewModelStore, ViewModelStore) {
        let database = try PostgresTestDatabase(cluster: try PostgresTestDatabase.clusterURL())
        let definitions = try ListDefinitions.decode(JSONParser.parse(Self.config))
        let first = try ViewModelStore(definitions: definitions, store: try PostgresStore(url: database.url), log: Log(level: .error))
        let second = try ViewModelStore(definitions: definitions, store: try PostgresStore(url: database.url), log: Log(level: .error))
        return (database, first, second)
    }

    private func person(_ id: String, team: String) -> ViewModelStore.Write {
        var record = JSONObject()
        record["id"] = .string(id)
        record["name"] = .string(id)
        record["team"] = .string(team)
        return .upsert(collection: "people", record: IncomingRecord(id: id, object: record))
    }

    private func order(_ id: String, owner: String) -> ViewModelStore.Write {
        var record = JSONObject()
        record["id"] = .string(id)
        record["title"] = .string(id)
        record["status"] = .string("open")
        record["owner"] = .string(owner)
        return .upsert(collection: "orders", record: IncomingRecord(id: id, object: record))
    }

    /// What a body shows: the title, and each section's key and row count.
    private func outline(_ state: ListState) -> String {
        let snapshot = state.snapshot
        return ([snapshot.definition.title ?? ""] + (0..<snapshot.sectionCount).map { index in
            let section = snapshot.section(at: index)!
            return "\(section.key):\(section.totalRowCount)"
        }).joined(separator: " ")
    }

    /// Changes `name`'s definition on `store`; returns the change number.
    private func change(_ store: ViewModelStore, _ name: String, to definition: ListDefinition) throws -> Int64 {
        guard case .changed(let change) = try store.changeDefinition(name, to: definition, if: nil).0 else {
            struct NotChanged: Error {}
            throw NotChanged()
        }
        return change.stored.sequence
    }

    /// The follower applies the log only up to `version` (as its thread may stand when a read comes).
    private func follow(_ store: ViewModelStore, through version: Int64) {
        store.writer.withLock { _ in _ = store.catchUpBefore(version + 1) }
    }

    /// The follower applies the log's commits up to `end` in one batch, as its thread does (one
    /// loop, one publication at the end), with `between` run after the batch's commits up to
    /// `middle`: where a reader's install may land.
    private func followInOneBatch(_ store: ViewModelStore, through middle: Int64, then end: Int64,
                                  between: () throws -> Void) throws {
        try store.writer.withLock { _ in
            let changes = try XCTUnwrap(store.changeLog).changes(after: store.applied.current, limit: 100)
            var next: [MaterializationKey: ListState] = [:]
            var partitionVersions: [MaterializationKey: Int64] = [:]
            var views: [String] = []
            var events: [VersionEvent] = []
            var reached = store.applyLocked(changes, through: middle, next: &next, partitionVersions: &partitionVersions,
                                            views: &views, events: &events)
            XCTAssertEqual(reached, middle)
            try between()
            reached = store.applyLocked(changes, through: end, next: &next, partitionVersions: &partitionVersions,
                                        views: &views, events: &events, from: reached)
            XCTAssertEqual(reached, end)
            _ = store.publish(next, partitionVersions: partitionVersions)
            store.applied.advance(to: reached)
        }
    }

    /// A record moved by another commit right after the change: the follower, reaching the
    /// change, finds that commit in storage already. It must not serve the list with it at the
    /// change's version (the other instance showed it only at the next), nor take it twice.
    func testAFollowedChangeShowsAtEachVersionWhatItsMakerShowed() throws {
        let (database, first, second) = try stores()
        defer { database.drop() }
        try commit(first, [person("p1", team: "Design"), person("p2", team: "Design")])
        let changed = try change(first, "people", to: try Self.people("A"))
        var shown = [changed: outline(try XCTUnwrap(first.list("people")))]
        try commit(first, [person("p1", team: "Sales")])
        let moved = try XCTUnwrap(first.list("people"))
        shown[moved.version] = outline(moved)
        XCTAssertEqual(shown.count, 2, "\(shown)")

        follow(second, through: changed)
        let followed = try XCTUnwrap(second.list("people"))
        XCTAssertEqual(outline(followed), shown[followed.version], "version \(followed.version) on the follower")
        follow(second, through: moved.version)
        let current = try XCTUnwrap(second.list("people"))
        XCTAssertEqual(current.version, moved.version)
        XCTAssertEqual(outline(current), shown[moved.version])
        // And onwards, alike on both.
        try commit(second, [person("p3", team: "Design")])
        follow(first, through: second.applied.current)
        XCTAssertEqual(outline(try XCTUnwrap(first.list("people"))), outline(try XCTUnwrap(second.list("people"))))
        XCTAssertEqual(try XCTUnwrap(first.list("people")).version, try XCTUnwrap(second.list("people")).version)
    }

    /// Two changes of a list in quick succession: a follower that reaches the first once the
    /// second is stored must not go on serving the old definition past the first's version — in
    /// the list's first language, its second, and a per-user list's partitions.
    func testAFollowerNeverServesADefinitionAtAVersionItWasNotInForce() throws {
        let (database, first, second) = try stores()
        defer { database.drop() }
        try commit(first, [person("p1", team: "Design"), order("o1", owner: "alice")])
        let peopleA = try change(first, "people", to: try Self.people("A"))
        let ordersA = try change(first, "orders", to: try Self.orders("A"))
        try commit(first, [person("p2", team: "Sales"), order("o2", owner: "alice")])
        let written = first.applied.current
        let peopleB = try change(first, "people", to: try Self.people("B"))
        let ordersB = try change(first, "orders", to: try Self.orders("B"))
        /// The title in force at `version`, given a list's changes.
        func inForce(_ version: Int64, _ changes: [(Int64, String)]) -> String {
            changes.last { $0.0 <= version }?.1 ?? "O"
        }

        follow(second, through: written)
        let list = try XCTUnwrap(second.list("people"))
        XCTAssertEqual(list.snapshot.definition.title, inForce(list.version, [(peopleA, "A"), (peopleB, "B")]), "version \(list.version)")
        // Nil when the read followed a change made since `list` was read: asked again, as a request is.
        var localized = try second.localized(list, language: "de")
        for _ in 0..<3 where localized == nil { localized = try second.localized(try XCTUnwrap(second.list("people")), language: "de") }
        let german = try XCTUnwrap(localized)
        XCTAssertEqual(german.snapshot.definition.title, inForce(german.version, [(peopleA, "A"), (peopleB, "B")]) + "de",
                       "version \(german.version)")
        let alice = try XCTUnwrap(try second.partition(try XCTUnwrap(PartitionKey(.string("alice"))), ofList: "orders"))
        XCTAssertEqual(alice.snapshot.definition.title, inForce(alice.version, [(ordersA, "A"), (ordersB, "B")]), "version \(alice.version)")

        follow(second, through: ordersB)
        XCTAssertEqual(try XCTUnwrap(second.list("people")).snapshot.definition.title, "B")
        XCTAssertEqual(try XCTUnwrap(second.partition(try XCTUnwrap(PartitionKey(.string("alice"))), ofList: "orders")).snapshot.definition.title, "B")
        XCTAssertEqual(outline(try XCTUnwrap(second.list("people"))), outline(try XCTUnwrap(first.list("people"))))
    }

    /// The instance making a change after commits of another it has not applied yet applies
    /// them first and builds the list as a follower would: the same body at the same version.
    func testAChangeMadeBehindAnotherInstanceIsBuiltAsTheFollowerBuildsIt() throws {
        let (database, first, second) = try stores()
        defer { database.drop() }
        try commit(first, [person("p1", team: "Design")])
        try commit(second, [person("p2", team: "Sales")])
        let changed = try change(first, "people", to: try Self.people("A"))
        let made = try XCTUnwrap(first.list("people"))
        XCTAssertEqual(made.version, changed)
        XCTAssertEqual(outline(made), "A Design:1 Sales:1")
        follow(second, through: changed)
        let followed = try XCTUnwrap(second.list("people"))
        XCTAssertEqual(followed.version, changed)
        XCTAssertEqual(outline(followed), outline(made))
    }

    /// A partition read on a follower that has not reached a change of its list's definition,
    /// from a committed state that holds the change and a later write of the user's records: it
    /// is built with the new definition (the change followed first), not the old one at the
    /// write's version.
    func testAPartitionReadAheadOfTheFollowerTakesTheDefinitionStoredWithIt() throws {
        let (database, first, second) = try stores()
        defer { database.drop() }
        try commit(first, [order("o1", owner: "alice")])
        let before = first.applied.current
        let changed = try change(first, "orders", to: try Self.orders("A"))
        try commit(first, [order("o2", owner: "alice")])
        follow(second, through: before)
        let alice = try XCTUnwrap(try second.partition(try XCTUnwrap(PartitionKey(.string("alice"))), ofList: "orders"))
        XCTAssertGreaterThan(alice.version, changed)
        XCTAssertEqual(alice.snapshot.definition.title, "A", "version \(alice.version)")
        XCTAssertEqual(alice.snapshot.totalRowCount, 2)
        follow(second, through: first.applied.current)
        let caughtUp = try XCTUnwrap(try second.partition(try XCTUnwrap(PartitionKey(.string("alice"))), ofList: "orders"))
        XCTAssertEqual(caughtUp.version, alice.version)
        XCTAssertEqual(caughtUp.snapshot.definition.title, "A")
        XCTAssertEqual(caughtUp.snapshot.totalRowCount, 2)
    }

    /// A whole list's other language first read on a follower behind another instance's write:
    /// the records it reads hold that write, so it shows them at the write's version (the one
    /// the writer showed them at), never at the version the follower applied before it; the
    /// write, reached in the log, is not taken twice.
    func testAnotherLanguageReadAheadOfTheFollowerShowsItsRecordsAtTheirVersion() throws {
        let (database, first, second) = try stores()
        defer { database.drop() }
        try commit(first, [person("p1", team: "Design")])
        let before = first.applied.current
        var shown = [before: outline(try XCTUnwrap(first.localized(try XCTUnwrap(first.list("people")), language: "de")))]
        try commit(first, [person("p2", team: "Sales")])
        let written = first.applied.current
        shown[written] = outline(try XCTUnwrap(first.localized(try XCTUnwrap(first.list("people")), language: "de")))
        XCTAssertNotEqual(shown[before], shown[written])

        follow(second, through: before)
        let list = try XCTUnwrap(second.list("people"))
        XCTAssertEqual(list.version, before)
        let german = try XCTUnwrap(second.localized(list, language: "de"))
        XCTAssertEqual(outline(german), shown[german.version], "version \(german.version) on the follower")
        follow(second, through: written)
        let caughtUp = try XCTUnwrap(second.localized(try XCTUnwrap(second.list("people")), language: "de"))
        XCTAssertEqual(caughtUp.version, written)
        XCTAssertEqual(outline(caughtUp), shown[written])
        // And onwards, alike on both.
        try commit(first, [person("p3", team: "Design")])
        follow(second, through: first.applied.current)
        let moved = try XCTUnwrap(second.localized(try XCTUnwrap(second.list("people")), language: "de"))
        XCTAssertEqual(moved.version, first.applied.current)
        XCTAssertEqual(outline(moved), outline(try XCTUnwrap(first.localized(try XCTUnwrap(first.list("people")), language: "de"))))
    }

    /// Two changes of a list stored before a follower reaches the first: it goes from the old
    /// definition straight to the second, and a page token written under the first (on the
    /// instance that served it) is told to reload there too — whether the follower jumped when
    /// it reached the first change in the log, or earlier (a partition read ahead of it).
    func testADefinitionAFollowerJumpedOverCountsAsRetired() throws {
        let (database, first, second) = try stores()
        defer { database.drop() }
        try commit(first, [person("p1", team: "Design"), order("o1", owner: "alice")])
        follow(second, through: first.applied.current)
        let peopleA = try change(first, "people", to: try Self.people("A"))
        let servedA = try XCTUnwrap(first.list("people")).snapshot.definition
        let germanA = try XCTUnwrap(first.localized(try XCTUnwrap(first.list("people")), language: "de"))
        let ordersA = try change(first, "orders", to: try Self.orders("A"))
        let aliceKey = try XCTUnwrap(PartitionKey(.string("alice")))
        let servedOrdersA = try XCTUnwrap(first.partition(aliceKey, ofList: "orders")).snapshot.definition
        _ = try change(first, "people", to: try Self.people("B"))
        _ = try change(first, "orders", to: try Self.orders("B"))

        // Alice's partition read first: it follows orders' latest change before the log gets there.
        XCTAssertEqual(try XCTUnwrap(second.partition(aliceKey, ofList: "orders")).snapshot.definition.title, "B")
        follow(second, through: peopleA)
        XCTAssertEqual(try XCTUnwrap(second.list("people")).snapshot.definition.title, "B")
        XCTAssertTrue(second.retiredFingerprints("people").contains(servedA.fingerprint), "people's A, jumped over in the log")
        XCTAssertEqual(germanA.servedFingerprint, servedA.fingerprint, "people's A in German binds its tokens to A as served")
        follow(second, through: ordersA)
        XCTAssertTrue(second.retiredFingerprints("orders").contains(servedOrdersA.fingerprint), "orders' A, jumped over by a read")
        follow(second, through: first.applied.current)
        for name in ["people", "orders"] {
            XCTAssertFalse(second.retiredFingerprints(name).contains(try XCTUnwrap(second.definition(name)).fingerprint),
                           "\(name)'s definition in force is not retired")
        }
    }

    /// Another language a reader builds while the writer applies a batch of another instance's
    /// commits: the reader read storage before the batch, so its state lacks the batch's
    /// commits, and it lands in memory after the first of them found it absent (the version
    /// that commit gave it is published with the batch). The batch's next commit must not move
    /// that state on as if it held the first: it is dropped, and the next read builds it again —
    /// not served, until the list's next definition change, without the first commit.
    func testAStateInstalledWhileTheWriterAppliesABatchIsNotMovedPastACommitItLacks() throws {
        let (database, first, second) = try stores()
        defer { database.drop() }
        try commit(first, [person("p1", team: "Design")])
        let changed = try change(first, "people", to: try Self.people("A"))
        follow(second, through: changed)
        // Built from storage at the change by a read on `first` still building when the batch
        // starts: as after the change, it is not in memory then.
        let list = try XCTUnwrap(first.list("people"))
        let german = try XCTUnwrap(first.localized(list, language: "de"))
        XCTAssertEqual(german.version, changed)
        XCTAssertEqual(outline(german), "Ade Design:1")
        first.cache.replaceList("people", with: list, epoch: changed)
        try commit(second, [person("p1", team: "Sales")])
        let firstCommit = second.applied.current
        try commit(second, [person("p2", team: "Design")])

        // `first`'s follower applies both in one batch; the read's state lands between them.
        try followInOneBatch(first, through: firstCommit, then: second.applied.current) {
            XCTAssertNotNil(first.cache.install(MaterializationKey(list: "people", partition: nil, language: "de"), state: german,
                                                epoch: changed))
        }
        let shown = try XCTUnwrap(first.localized(try XCTUnwrap(first.list("people")), language: "de"))
        let expected = try XCTUnwrap(second.localized(try XCTUnwrap(second.list("people")), language: "de"))
        XCTAssertEqual(expected.version, second.applied.current)
        XCTAssertEqual(outline(expected), "Ade Design:1 Sales:1")
        XCTAssertEqual(shown.version, expected.version)
        XCTAssertEqual(outline(shown), outline(expected), "German at version \(shown.version)")
    }

    /// A user's partition a reader builds while the writer applies a batch of another
    /// instance's commits (the same race): read from storage before the batch, installed after
    /// the batch's first commit found it absent. The next commit must not move it on without
    /// the first.
    func testAPartitionInstalledWhileTheWriterAppliesABatchIsNotMovedPastACommitItLacks() throws {
        let (database, first, second) = try stores()
        defer { database.drop() }
        let alice = try XCTUnwrap(PartitionKey(.string("alice")))
        try commit(first, [order("o1", owner: "alice")])
        let built = try first.partition(alice, of: try XCTUnwrap(first.definition("orders")))
        XCTAssertEqual(built.snapshot.totalRowCount, 1)
        // Built by a read still building when the batch starts: not in memory then.
        first.cache.replaceList("orders", with: nil, epoch: 0)
        try commit(second, [order("o2", owner: "alice")])
        let firstCommit = second.applied.current
        try commit(second, [order("o3", owner: "alice")])

        try followInOneBatch(first, through: firstCommit, then: second.applied.current) {
            XCTAssertNotNil(first.cache.install(MaterializationKey(list: "orders", partition: alice), state: built, epoch: 0))
        }
        let shown = try XCTUnwrap(first.partition(alice, ofList: "orders"))
        let expected = try XCTUnwrap(second.partition(alice, ofList: "orders"))
        XCTAssertEqual(expected.snapshot.totalRowCount, 3)
        XCTAssertEqual(shown.version, expected.version)
        XCTAssertEqual(shown.snapshot.totalRowCount, 3, "alice's orders at version \(shown.version)")
    }

    /// A search result a reader builds while the writer applies a batch of another instance's
    /// commits (the same race): taken from the list before the batch, installed after the
    /// batch's first commit moved the list's results. The next commit must not move it on
    /// without the first.
    func testASearchResultInstalledWhileTheWriterAppliesABatchIsNotMovedPastACommitItLacks() throws {
        let (database, first, second) = try stores()
        defer { database.drop() }
        let query = ListQuery(text: "p", filters: [], searchFields: [try XCTUnwrap(FieldPath("name"))])
        try commit(first, [person("p1", team: "Design")])
        let list = try XCTUnwrap(first.list("people"))
        let built = try XCTUnwrap(first.searched(list, query: query))
        XCTAssertEqual(outline(built), "O Design:1")
        // Built by a read still building when the batch starts: not in memory then.
        first.cache.replaceList("people", with: list, epoch: 0)
        try commit(second, [person("p2", team: "Sales")])
        let firstCommit = second.applied.current
        try commit(second, [person("p3", team: "Design")])

        try followInOneBatch(first, through: firstCommit, then: second.applied.current) {
            XCTAssertNotNil(first.cache.install(MaterializationKey(list: "people", partition: nil, query: query), state: built,
                                                epoch: 0))
        }
        let shown = try XCTUnwrap(first.searched(try XCTUnwrap(first.list("people")), query: query))
        XCTAssertEqual(outline(shown), "O Design:2 Sales:1", "the result at version \(shown.version)")
    }

    /// A conditional change made on an instance that has not followed another's change yet is
    /// judged by the stored definition, not by the one this instance still serves: `If-Match`
    /// naming the other's new revision holds there (a false `412` if judged by what it serves),
    /// and, once the definition moved on, the same tag is refused on both.
    func testAConditionalChangeIsJudgedByTheStoredDefinitionNotTheOneServed() throws {
        let (database, first, second) = try stores()
        defer { database.drop() }
        try commit(first, [person("p1", team: "Design")])
        follow(second, through: first.applied.current)
        guard case .changed(let made) = try first.changeDefinition("people", to: try Self.people("A"), if: nil).0 else {
            return XCTFail("the unconditional change was not made")
        }
        XCTAssertEqual(try XCTUnwrap(second.list("people")).snapshot.definition.title, "O", "the follower has not followed it")
        let onA = DefinitionCondition(ifMatch: .tags([.runtime(revision: made.stored.revision)]), ifNoneMatch: nil)
        guard case .changed = try second.changeDefinition("people", to: try Self.people("B"), if: onA).0 else {
            return XCTFail("If-Match naming the stored revision was refused on the instance behind")
        }
        XCTAssertEqual(try XCTUnwrap(second.list("people")).snapshot.definition.title, "B")
        guard case .conditionFailed = try first.changeDefinition("people", to: try Self.people("C"), if: onA).0 else {
            return XCTFail("a stale If-Match was not refused")
        }
    }

    /// A view another instance changed, then a definition change in the same batch of the log:
    /// the view is handed on before the version moves past it (a read waiting for that version
    /// found the view as it was before: `applied` moved first, the views only after the batch).
    func testAViewChangeFollowedBeforeADefinitionChangeIsHandedOnBeforeTheVersionMoves() throws {
        let (database, first, second) = try stores()
        defer { database.drop() }
        try commit(first, [person("p1", team: "Design")])
        follow(second, through: first.applied.current)
        try first.store.saveView(StoredView(id: "v1", list: "people", hidden: ["Design"], lastUsed: 1))
        let viewChange = try first.store.lastSequence()
        let changed = try change(first, "people", to: try Self.people("A"))
        XCTAssertGreaterThan(changed, viewChange)
        let seen = Locked<[(ids: [String], applied: Int64)]>([])
        second.followViews { [second] ids in seen.withLock { $0.append((ids, second.applied.current)) } }
        follow(second, through: changed)
        XCTAssertEqual(second.applied.current, changed)
        let handed = seen.withLock { $0 }.first { $0.ids.contains("v1") }
        let told = try XCTUnwrap(handed, "the view change was never handed on")
        XCTAssertLessThan(told.applied, viewChange, "handed on after the version moved past it")
    }

}
