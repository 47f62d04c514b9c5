import Foundation
import ListModel
@testable import ListStore
import Locking
import TestSupport
import XCTest

/// The store contract on PostgreSQL, plus what only a shared database has: several stores on one
/// database share one sequence in commit order, migrate once when started together, and log
/// every commit. Each test has a database of its own, dropped afterwards.
final class PostgresStoreTests: RecordStoreContract {
    private var database: PostgresTestDatabase?
    private var stores: [PostgresStore] = []

    override func setUpWithError() throws {
        let cluster = try PostgresTestDatabase.clusterURL()
        database = try PostgresTestDatabase(cluster: cluster)
    }

    override func tearDown() {
        stores.forEach { $0.close() }
        stores = []
        database?.drop()
        database = nil
    }

    private func openStore() throws -> PostgresStore {
        let database = try XCTUnwrap(database)
        let store = try PostgresStore(url: database.url)
        stores.append(store)
        return store
    }

    override func makeStore() throws -> RecordStore { try openStore() }

    /// Two instances changing one view at once take the sequence row and the view's row in one
    /// order, as a commit does: an update took the view's row first and the sequence row after,
    /// a save the other way round, and PostgreSQL ended one as a deadlock (a `503`). Here a
    /// session holds the sequence row while a save (queued first) and then an update wait, and
    /// lets it go: on the old code the save got the sequence row and waited for the update's
    /// view row, which waited for the sequence row.
    func testTwoInstancesChangingOneViewDoNotDeadlock() throws {
        let database = try XCTUnwrap(self.database)
        let (a, b) = (try openStore(), try openStore())
        try a.saveView(StoredView(id: "x", list: "l", hidden: [], lastUsed: 1))
        let holder = try PostgresTestSession(url: database.url)
        defer { holder.close() }
        try holder.query("BEGIN")
        try holder.query("SELECT value FROM state WHERE key = 'sequence' FOR UPDATE")
        let waiting = { () -> Int in
            let rows = try? database.query(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")
            return rows?.first?.first.flatMap { $0.flatMap(Int.init) } ?? -1
        }
        let failures = Locked<[String]>([])
        let done = DispatchGroup()
        func run(_ name: String, _ body: @escaping @Sendable () throws -> Void) {
            done.enter()
            Thread {
                defer { done.leave() }
                do { try body() } catch { failures.withLock { $0.append("\(name): \(error)") } }
            }.start()
        }
        run("save") { try a.saveView(StoredView(id: "x", list: "l", hidden: ["s"], lastUsed: 2)) }
        XCTAssertTrue(eventually(within: 10) { waiting() == 1 }, "the save waits for the sequence row")
        run("update") { _ = try b.updateView(StoredView(id: "x", list: "l", hidden: ["u"], lastUsed: 3), replacing: []) }
        XCTAssertTrue(eventually(within: 10) { waiting() == 2 }, "the update waits too")
        try holder.query("COMMIT")
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(failures.withLock { $0 }, [], "neither ended as a deadlock")
        XCTAssertEqual(try a.view(id: "x")?.hidden, ["s"], "the save, then the update from a stale read, which stores nothing")
    }

    func testCommitsTakeOneSequenceEachAndRememberTheCollection() throws { try checkCommitsTakeOneSequenceEachAndRememberTheCollection() }
    func testGroupsCommitTogetherEachWithItsOwnNumber() throws { try checkGroupsCommitTogetherEachWithItsOwnNumber() }
    func testACommitLargerThanAStatementIsOneCommit() throws { try checkACommitLargerThanAStatementIsOneCommit() }
    func testDeletingAMissingRecordChangesNothing() throws { try checkDeletingAMissingRecordChangesNothing() }
    func testRecordsPageByIdInCodePointOrder() throws { try checkRecordsPageByIdInCodePointOrder() }
    func testViewsAreSavedTouchedAndDeleted() throws { try checkViewsAreSavedTouchedAndDeleted() }
    func testUpdatingADeletedViewStoresNothing() throws { try checkUpdatingADeletedViewStoresNothing() }
    func testAViewChangeFromAStaleReadStoresNothing() throws { try checkAViewChangeFromAStaleReadStoresNothing() }
    func testCommitHandsBackPreviousJSONOfNamedCollections() throws { try checkCommitHandsBackPreviousJSONOfNamedCollections() }
    func testAMissedDeleteDoesNotTouchItsCollection() throws { try checkAMissedDeleteDoesNotTouchItsCollection() }
    func testARecordCarriesTheNumberOfItsLastWrite() throws { try checkARecordCarriesTheNumberOfItsLastWrite() }
    func testPreparedFieldsKeepTheVersionOfEachValue() throws { try checkPreparedFieldsKeepTheVersionOfEachValue() }
    func testRecordsAreFoundByFieldValue() throws { try checkRecordsAreFoundByFieldValue() }
    func testRecordsKeepTheirExactBytes() throws { try checkRecordsKeepTheirExactBytes() }
    func testViewsKeepTheirOwner() throws { try checkViewsKeepTheirOwner() }
    func testDefinitionsTakeTheSequenceAndKeepCountingRevisions() throws { try checkDefinitionsTakeTheSequenceAndKeepCountingRevisions() }
    func testServedDefinitionsAreKeptAndReplaced() throws { try checkServedDefinitionsAreKeptAndReplaced() }
    func testServedChangesTakeOneNumberAndNoneForWhatIsRecorded() throws { try checkServedChangesTakeOneNumberAndNoneForWhatIsRecorded() }
    func testConditionalDefinitionChangesStoreOnlyWhenTheExpectationHolds() throws {
        try checkConditionalDefinitionChangesStoreOnlyWhenTheExpectationHolds()
    }
    func testCommitsRecordDeliveriesCoalescedPerListAndPartition() throws { try checkCommitsRecordDeliveriesCoalescedPerListAndPartition() }
    func testDefinitionChangesRecordTheirDeliveries() throws { try checkDefinitionChangesRecordTheirDeliveries() }
    func testAPartitionWithANulIsRecordedAndClaimedAsAsked() throws { try checkAPartitionWithANulIsRecordedAndClaimedAsAsked() }
    func testAClaimedDeliveryIsHeldUntilAcceptedFailedOrItsLeaseEnds() throws { try checkAClaimedDeliveryIsHeldUntilAcceptedFailedOrItsLeaseEnds() }
    func testAcceptedDeliveriesGoUnlessALaterVersionCame() throws { try checkAcceptedDeliveriesGoUnlessALaterVersionCame() }
    func testAnAcceptanceFromAWorkerThatLostTheClaimLeavesTheRowToItsHolder() throws { try checkAnAcceptanceFromAWorkerThatLostTheClaimLeavesTheRowToItsHolder() }
    func testFailedDeliveriesWaitForTheirRetryAndCountAttempts() throws { try checkFailedDeliveriesWaitForTheirRetryAndCountAttempts() }
    func testDeliveriesOfRemovedWebhooksAreDropped() throws { try checkDeliveriesOfRemovedWebhooksAreDropped() }
    func testAReleasedDeliveryKeepsItsAttemptsAndIsDueAsItWas() throws { try checkAReleasedDeliveryKeepsItsAttemptsAndIsDueAsItWas() }
    func testClaimsTakeTheLongestWaitingRowsFirst() throws { try checkClaimsTakeTheLongestWaitingRowsFirst() }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A definition change and a config reload take numbers of the one sequence: the change log
    /// holds a row for each, so a follower never sees a gap there.
    func testDefinitionChangesLeaveNoGapInTheChangeLog() throws {
        let store = try openStore()
        _ = try store.commit([.upsert(collection: "people", id: "a", json: bytes("{}"))])
        _ = try store.saveDefinition(list: "inbox", json: bytes(#"{"sections":[]}"#))
        _ = try store.takeSequence()
        _ = try store.saveDefinition(list: "inbox", json: nil)
        let logged = try store.changes(after: 0, limit: 100)
        XCTAssertEqual(logged.map(\.sequence), [1, 2, 3, 4])
        XCTAssertEqual(logged.dropFirst().map(\.collection), Array(repeating: PostgresSchema.definitionsLog, count: 3))
        XCTAssertEqual(logged.dropFirst().map(\.id), ["inbox", "", "inbox"])
    }

    func testEverythingSurvivesReopening() throws {
        let store = try openStore()
        _ = try store.commit([.upsert(collection: "people", id: "a", json: bytes(#"{"id":"a"}"#))])
        try store.saveView(StoredView(id: "v", list: "l", owner: "u", hidden: ["k\"ey"], lastUsed: 7))
        store.close()
        XCTAssertThrowsError(try store.lastSequence(), "a closed store refuses") { error in
            XCTAssertEqual((error as? StoreError)?.cause, .closed)
        }
        let reopened = try openStore()
        XCTAssertEqual(try reopened.lastSequence(), 2, "the record's commit and the view's change, which is logged too")
        XCTAssertEqual(try reopened.record(in: "people", id: "a")?.json, bytes(#"{"id":"a"}"#))
        XCTAssertEqual(try reopened.allViews(), [StoredView(id: "v", list: "l", owner: "u", hidden: ["k\"ey"], lastUsed: 7)])
    }

    /// A commit that fails part-way leaves nothing behind, and the error keeps PostgreSQL's SQLSTATE.
    func testAFailedCommitChangesNothingAndKeepsTheSQLState() throws {
        let store = try openStore()
        _ = try store.commit([.upsert(collection: "people", id: "a", json: bytes("{}"))])
        XCTAssertThrowsError(try store.commit(groups: [[.upsert(collection: "people", id: "b", json: bytes("{}"))],
                                                       [.upsert(collection: "people", id: "c", json: bytes("{not json"))]])) { error in
            XCTAssertEqual((error as? StoreError)?.cause, .postgres(sqlState: "22P02"), "\(error)")
            XCTAssertNil((error as? StoreError)?.fault, "bad data is no passing fault")
        }
        XCTAssertEqual(try store.allRecords(in: "people").map(\.id), ["a"])
        XCTAssertEqual(try store.lastSequence(), 1)
        XCTAssertEqual(try store.changes(after: 0, limit: 100).map(\.id), ["a"])
        XCTAssertEqual(try store.commit([.delete(collection: "people", id: "a")]).sequence, 2, "the store goes on after a failure")
    }

    /// Connections cut under the idle store (a server restart, an administrator) are found
    /// before the next statement, which goes to a new session: no call fails for it (each
    /// instance's first write after a database restart was refused).
    func testAStoreReconnectsAfterItsConnectionsAreCut() throws {
        let store = try openStore()
        _ = try store.commit([.upsert(collection: "people", id: "a", json: bytes("{}"))])
        XCTAssertEqual(try cutSessions(), 2, "the store's two connections")
        XCTAssertEqual(try store.commit([.upsert(collection: "people", id: "b", json: bytes("{}"))]).sequence, 2)
        XCTAssertEqual(try store.lastSequence(), 2)
        XCTAssertEqual(try store.allRecords(in: "people").map(\.id), ["a", "b"])
    }

    /// A session lost while it holds the seed lock is not replaced while the lock is held: the
    /// lock went with it, and the seeding's commits went on in a new session without it (a second
    /// instance, waiting for the lock, then seeded the same records). Released, the store
    /// reconnects as ever.
    func testASessionLostWhileHoldingTheSeedLockIsNotReplacedUntilItIsReleased() throws {
        let store = try openStore()
        _ = try store.commit([.upsert(collection: "people", id: "a", json: bytes("{}"))])
        XCTAssertThrowsError(try store.holdingSeedLock {
            XCTAssertEqual(try cutSessions(), 2, "the store's two connections")
            _ = try store.commit([.upsert(collection: "people", id: "seeded", json: bytes("{}"))])
        }) { error in
            XCTAssertEqual((error as? StoreError)?.fault, .unreachable, "\(error)")
        }
        XCTAssertNil(try store.record(in: "people", id: "seeded"))
        XCTAssertEqual(try store.commit([.upsert(collection: "people", id: "b", json: bytes("{}"))]).sequence, 2)
    }

    /// A write's transaction is `READ COMMITTED` whatever the database's default: the commit
    /// relies on it (a stricter default made every commit that waited for another instance's a
    /// serialization failure, `503`).
    func testATransactionIsReadCommittedWhateverTheDatabaseDefault() throws {
        let database = try XCTUnwrap(self.database)
        let admin = try PostgresConnection(url: database.url)
        let name = try XCTUnwrap(try admin.execute("SELECT current_database()").string(0, 0))
        _ = try admin.execute("ALTER DATABASE \"\(name)\" SET default_transaction_isolation = 'serializable'")
        defer { _ = try? admin.execute("ALTER DATABASE \"\(name)\" RESET default_transaction_isolation") }
        let connection = try PostgresConnection(url: database.url)
        XCTAssertEqual(try connection.execute("SHOW default_transaction_isolation").string(0, 0), "serializable", "the default taken")
        let level = try connection.transaction { () throws(PostgresError) -> String? in
            try connection.execute("SHOW transaction_isolation").string(0, 0)
        }
        XCTAssertEqual(level, "read committed")
        // And a statement on its own (the outbox's claims run so) in a store's session.
        let session = try PostgresConnection(url: database.url, sessionSetup: PostgresStore.sessionSetup)
        XCTAssertEqual(try session.execute("SHOW transaction_isolation").string(0, 0), "read committed")
    }

    /// A 2xx means the write is on disk: a store's session commits with `synchronous_commit` on
    /// though the database's default is off, and keeps a stronger setting it is given.
    func testCommitsWaitForTheirFlushWhateverTheDatabaseDefault() throws {
        let database = try XCTUnwrap(self.database)
        let admin = try PostgresConnection(url: database.url)
        let name = try XCTUnwrap(try admin.execute("SELECT current_database()").string(0, 0))
        defer { _ = try? admin.execute("ALTER DATABASE \"\(name)\" RESET synchronous_commit") }
        for (setting, expected) in [("off", "on"), ("remote_apply", "remote_apply"), ("local", "local")] {
            _ = try admin.execute("ALTER DATABASE \"\(name)\" SET synchronous_commit = '\(setting)'")
            XCTAssertEqual(try PostgresConnection(url: database.url).execute("SHOW synchronous_commit").string(0, 0), setting, "the default taken")
            let session = try PostgresConnection(url: database.url, sessionSetup: PostgresStore.sessionSetup)
            XCTAssertEqual(try session.execute("SHOW synchronous_commit").string(0, 0), expected, setting)
        }
    }

    /// A connection gives up on a database gone silent in seconds, not in libpq's kernel-bound
    /// minutes (a request thread, and every write behind it, waited while `/readyz` said ready);
    /// the URL's own settings win over these.
    func testAConnectionGivesUpOnASilentDatabaseUnlessItsURLSaysOtherwise() throws {
        let database = try XCTUnwrap(self.database)
        let plain = try PostgresConnection(url: database.url)
        XCTAssertEqual(plain.option("connect_timeout"), "10")
        XCTAssertEqual(plain.option("keepalives_idle"), "10")
        XCTAssertEqual(plain.option("tcp_user_timeout"), "30000")
        var components = try XCTUnwrap(URLComponents(string: database.url))
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "connect_timeout", value: "3")]
        let own = try PostgresConnection(url: try XCTUnwrap(components.string))
        XCTAssertEqual(own.option("connect_timeout"), "3", "the URL's own")
        XCTAssertEqual(own.option("tcp_user_timeout"), "30000")
        XCTAssertEqual(try own.execute("SELECT current_database()").string(0, 0), try plain.execute("SELECT current_database()").string(0, 0),
                       "the same database through either")
        // The operator's other ways libpq reads win too: PGCONNECT_TIMEOUT (a default given as a
        // parameter went over it).
        setenv("PGCONNECT_TIMEOUT", "7", 1)
        defer { unsetenv("PGCONNECT_TIMEOUT") }
        XCTAssertEqual(try PostgresConnection(url: database.url).option("connect_timeout"), "7")
    }

    /// A listener whose session the server ended while it waited (`pg_terminate_backend`, an
    /// `idle_session_timeout`) listens again in the session its connection resets to: it heard
    /// nothing more after the reset, as its `LISTEN` was sent once, in the first session.
    func testAListenerWhoseSessionWasEndedHearsTheNextCommit() throws {
        let database = try XCTUnwrap(self.database)
        let store = try openStore()
        let listener = PostgresChangeListener(url: database.url)
        defer { listener.close() }
        XCTAssertNil(try listener.wait(upTo: 0), "listening, nothing announced yet")
        XCTAssertEqual(try cutSessions(), 3, "the store's two connections and the listener's")
        // The listener meets its session's end (its farewell read, then a reset) while it waits.
        for _ in 0..<3 { _ = try? listener.wait(upTo: 0.05) }
        let version = try store.commit([.upsert(collection: "people", id: "a", json: bytes("{}"))]).sequence
        var heard: Int64?
        XCTAssertTrue(eventually(within: 5) {
            heard = try? listener.wait(upTo: 0.2)
            return heard != nil
        }, "the commit after the session ended was announced")
        XCTAssertEqual(heard, version)
    }

    /// Ends every other session on the test's database (`pg_terminate_backend`, as an
    /// administrator or a database restart would) and waits until they are gone (it only
    /// signals: they end moments later); returns how many there were.
    private func cutSessions(file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let database = try XCTUnwrap(self.database)
        let cut = try database.query("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)
        XCTAssertTrue(eventually(within: 10) {
            (try? database.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()").count) == 0
        }, "the cut sessions ended", file: file, line: line)
        return cut.count
    }

    /// Every write of every commit is in the log, in version order; reads come in whole commits.
    func testTheChangeLogHoldsEveryWriteInWholeCommits() throws {
        let store = try openStore()
        _ = try store.commit(groups: [
            [.upsert(collection: "a", id: "1", json: bytes(#"{"v":1}"#)), .upsert(collection: "b", id: "2", json: bytes(#"{"v":2}"#))],
            [.delete(collection: "a", id: "missing")],
            [.delete(collection: "a", id: "1"), .delete(collection: "a", id: "nothing"), .upsert(collection: "a", id: "3", json: bytes("{}"))],
        ])
        _ = try store.commit([.upsert(collection: "b", id: "2", json: bytes(#"{"v":3}"#))])
        let all = try store.changes(after: 0, limit: 100)
        XCTAssertEqual(all, [
            LoggedChange(sequence: 1, collection: "a", id: "1", json: bytes(#"{"v":1}"#)),
            LoggedChange(sequence: 1, collection: "b", id: "2", json: bytes(#"{"v":2}"#)),
            LoggedChange(sequence: 2, collection: "a", id: "1", json: nil),
            LoggedChange(sequence: 2, collection: "a", id: "3", json: bytes("{}")),
            LoggedChange(sequence: 3, collection: "b", id: "2", json: bytes(#"{"v":3}"#)),
        ])
        XCTAssertEqual(try store.changes(after: 0, limit: 3).map(\.sequence), [1, 1], "a commit is never cut")
        XCTAssertEqual(try store.changes(after: 0, limit: 1).map(\.sequence), [1, 1], "the next commit comes whole even past the limit")
        XCTAssertEqual(try store.changes(after: 1, limit: 4).map(\.sequence), [2, 2, 3])
        XCTAssertEqual(try store.changes(after: 3, limit: 10), [])
    }

    /// Commits of many upsert groups (one statement for the whole commit) and mixed commits
    /// (a statement per write) answer exactly as the memory store does, and log every write.
    func testCommitsAnswerAsTheMemoryStoreDoes() throws {
        let store = try openStore()
        let reference = MemoryStore()
        func record(_ id: String, _ owner: String) -> RecordWrite {
            .upsert(collection: id.hasPrefix("t") ? "teams" : "people", id: id, json: Array(#"{"id":"\#(id)","owner":"\#(owner)"}"#.utf8))
        }
        let commits: [[[RecordWrite]]] = [
            [[record("a", "u1")], [record("b", "u1"), record("t1", "u1")], [], [record("c", "u2")]],
            [[record("a", "u2")], [record("d", "u3")], [record("b", "u3"), record("t1", "u2")]],
            [[record("a", "u3")], [record("a", "u4")], [.delete(collection: "people", id: "c")]],
            [[.delete(collection: "people", id: "zz")], [record("e", "u1")]],
            [(0..<3_000).map { record(String(format: "bulk%05d", $0), "u\($0 % 7)") }],
        ]
        for groups in commits {
            XCTAssertEqual(try store.commit(groups: groups, previousIn: ["people"]), try reference.commit(groups: groups, previousIn: ["people"]))
        }
        XCTAssertEqual(try store.lastSequence(), try reference.lastSequence())
        XCTAssertEqual(try store.collectionSequences(), try reference.collectionSequences())
        for collection in ["people", "teams"] {
            XCTAssertEqual(try store.allRecords(in: collection), try reference.allRecords(in: collection))
        }
        let log = try store.changes(after: 0, limit: 100_000)
        XCTAssertEqual(log.count, commits.joined().joined().count - 1, "every write but the delete of a missing record")
        XCTAssertEqual(log.map(\.sequence), log.map(\.sequence).sorted())
        XCTAssertEqual(log.filter { $0.json == nil }, [LoggedChange(sequence: 9, collection: "people", id: "c", json: nil,
                                                                    previous: Array(#"{"id":"c","owner":"u2"}"#.utf8))],
                       "a delete logs the JSON it removed (people is asked about)")
        XCTAssertEqual(log.first { $0.sequence == 4 }?.previous, Array(#"{"id":"a","owner":"u1"}"#.utf8), "an upsert logs the JSON it replaced")
        XCTAssertEqual(log.first { $0.sequence == 8 }?.previous, Array(#"{"id":"a","owner":"u3"}"#.utf8), "also one statement per write")
        XCTAssertEqual(log.first { $0.id == "t1" }?.previous, nil, "teams is not asked about")
        XCTAssertEqual(log.filter { $0.sequence == 2 }.map(\.id), ["b", "t1"])
    }

    /// Several stores on one database (several instances) write concurrently: the numbers they
    /// get are 1…N without gaps or repeats, and the change log holds each commit under its number.
    func testStoresSharingADatabaseShareOneSequenceInCommitOrder() throws {
        let stores = try (0..<3).map { _ in try openStore() }
        let perWriter = 20
        let results = Locked<[(sequence: Int64, id: String)]>([])
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: stores.count * 2) { writer in
            let store = stores[writer % stores.count]
            for index in 0..<perWriter {
                let id = "w\(writer)-\(index)"
                do {
                    let result = try store.commit([.upsert(collection: "c", id: id, json: Array("{\"id\":\"\(id)\"}".utf8))])
                    results.withLock { $0.append((result.sequence, id)) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        let committed = results.withLock { $0 }.sorted { $0.sequence < $1.sequence }
        let total = stores.count * 2 * perWriter
        XCTAssertEqual(committed.map(\.sequence), (1...Int64(total)).map { $0 })
        let log = try stores[0].changes(after: 0, limit: 10_000)
        XCTAssertEqual(log.map(\.sequence), committed.map(\.sequence))
        XCTAssertEqual(log.map(\.id), committed.map(\.id), "each number's log entry is that commit's write")
        for store in stores { XCTAssertEqual(try store.lastSequence(), Int64(total)) }
    }

    /// A field prepared by one instance has its values' versions kept by every instance's commits.
    func testFieldVersionsAreKeptByTheCommitsOfEveryInstance() throws {
        let preparing = try openStore()
        let other = try openStore()
        let owner = try XCTUnwrap(FieldPath("owner"))
        try preparing.prepareField(owner, in: "orders")
        let moved = try other.commit([.upsert(collection: "orders", id: "o1", json: bytes(#"{"owner":"ann"}"#))])
        let ann = try XCTUnwrap(ScalarKey(.string("ann")))
        XCTAssertEqual(try preparing.fieldVersion(owner, in: "orders", key: ann), moved.sequence)
        let away = try other.commit([.upsert(collection: "orders", id: "o1", json: bytes(#"{"owner":"bob"}"#))])
        XCTAssertEqual(try preparing.fieldVersion(owner, in: "orders", key: ann), away.sequence, "the old owner's partition moved too")
    }

    /// Instances starting together on an empty database: every one starts, the schema is made once.
    func testStoresStartingTogetherMigrateOnce() throws {
        let database = try XCTUnwrap(self.database)
        let opened = Locked<[PostgresStore]>([])
        let failures = Locked<[String]>([])
        let url = database.url
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let store = try PostgresStore(url: url)
                opened.withLock { $0.append(store) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        stores += opened.withLock { $0 }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(stores.count, 4)
        XCTAssertEqual(try database.query("SELECT version FROM schema_version"), [[String(PostgresSchema.currentVersion)]])
        XCTAssertEqual(try stores[0].commit([.upsert(collection: "x", id: "1", json: Array("{}".utf8))]).sequence, 1)
    }

    /// The field query is served by the expression index (the planner is told not to scan), and
    /// a record holding the escape `\u0000` — which PostgreSQL cannot read a field of — still
    /// writes into an indexed collection and is found.
    func testTheFieldIndexServesTheQueryAndTakesEveryRecord() throws {
        let store = try openStore()
        let owner = try XCTUnwrap(FieldPath("owner"))
        try store.prepareField(owner, in: "notes")
        let odd = bytes(#"{"owner":"ann","note":"a\u0000b"}"#)
        _ = try store.commit([.upsert(collection: "notes", id: "n1", json: odd),
                              .upsert(collection: "notes", id: "n2", json: bytes(#"{"owner":"bob"}"#))])
        XCTAssertEqual(try store.records(in: "notes", field: owner, equals: .string("ann")), [StoredRecord(id: "n1", json: odd)])
        let database = try XCTUnwrap(self.database)
        let plan = try database.query("""
            SET enable_seqscan = off;
            EXPLAIN SELECT id FROM records WHERE collection = 'notes' AND \(PostgresStore.fieldExpression(owner)) = 'ann'
            """).compactMap { $0.first ?? nil }.joined(separator: "\n")
        XCTAssertTrue(plan.contains("records_field_"), plan)
    }
}
