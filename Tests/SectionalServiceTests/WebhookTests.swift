import Foundation
import HTTPServer
import ListStore
@testable import SectionalService
import TestSupport
import XCTest

/// Webhooks end to end: a real server on port 0 delivers to a receiver in this process
/// (``WebhookReceiver``), which checks every signature with libcrypto itself.
final class WebhookTests: FolderTestCase {
    static let secret = "webhook-secret-for-tests"
    static let secrets = ["TEST_WEBHOOK_SECRET": secret]

    /// A per-user list `orders` (split by `owner`) and a list `all` over the same records;
    /// the webhook follows `lists`, retrying fast (20 ms doubling to 1 s).
    static func config(_ url: String, lists: String = #"["all", "orders"]"#) -> String {
        """
        {
          "lists": {
            "orders": {
              "scope": { "field": "owner", "claim": "sub" },
              "sections": [ { "source": "orders", "groupBy": "status", "type": "status", "title": "{$key}",
                              "row": { "type": "order", "title": "{title}" } } ]
            },
            "all": { "sections": [ { "key": "all", "source": "orders", "type": "all", "title": "All", "row": { "type": "order", "title": "{title}" } } ] },
            "other": { "sections": [ { "key": "o", "source": "others", "type": "o", "title": "O", "row": { "type": "o", "title": "{title}" } } ] }
          },
          "webhooks": [ { "url": "\(url)", "lists": \(lists), "secretEnv": "TEST_WEBHOOK_SECRET",
                          "timeoutSeconds": 20, "firstRetryMilliseconds": 20, "maxRetrySeconds": 1 } ]
        }
        """
    }

    /// Writes an order; returns the version the write answer carries.
    @discardableResult
    private func order(_ app: TestApp, _ id: String, owner: String, title: String = "t") throws -> Int {
        let answer = try app.put("orders", id, #"{"title":"\#(title)","status":"open","owner":"\#(owner)"}"#).expect(200...201)
        return try XCTUnwrap(answer.header("Sectional-Version").flatMap { Int($0) })
    }

    private func metric(_ app: TestApp, _ name: String) -> Double {
        (try? app.metric(name)) ?? -1
    }

    func testADeliveryCarriesTheListAndVersionSignedWithTheSecret() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        let app = try TestApp(config: Self.config(receiver.url, lists: #"["all"]"#), webhookSecrets: Self.secrets)
        let version = try order(app, "o1", owner: "ann")
        XCTAssertTrue(eventually(within: 10) { receiver.deliveries.contains { $0.version == version } }, "\(receiver.deliveries.map(\.json))")
        let delivery = try XCTUnwrap(receiver.deliveries.last)
        XCTAssertEqual(delivery.target, "/hooks/sectional?from=test")
        XCTAssertEqual(String(decoding: delivery.body, as: UTF8.self), #"{"list":"all","version":\#(version)}"#)
        XCTAssertEqual(delivery.headers["content-type"], "application/json")
        XCTAssertTrue(delivery.headers["sectional-signature"]?.hasPrefix("sha256=") == true)
        XCTAssertTrue(delivery.signatureValid, "the receiver's own HMAC of the body matches the header")
        XCTAssertTrue(eventually(within: 10) { metric(app, "sectional_webhook_deliveries_succeeded_total") == 1 })
        XCTAssertTrue(eventually(within: 10) { metric(app, "sectional_webhook_outbox_pending") == 0 })
        XCTAssertEqual(metric(app, "sectional_webhook_deliveries_sent_total"), 1)
        XCTAssertEqual(metric(app, "sectional_webhook_deliveries_failed_total"), 0)
        // A write to a collection no followed list reads delivers nothing.
        try app.put("others", "x", #"{"title":"x"}"#).expect(201)
        let versionAfter = try order(app, "o2", owner: "ann")
        XCTAssertTrue(eventually(within: 10) { receiver.deliveries.contains { $0.version == versionAfter } })
        XCTAssertEqual(receiver.deliveries.count, 2, "\(receiver.deliveries.map(\.json))")
    }

    func testAPerUserListDeliversOncePerUserAWriteMoved() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        let app = try TestApp(config: Self.config(receiver.url, lists: #"["orders"]"#), webhookSecrets: Self.secrets)
        let batch = try app.request("POST", "/v1/collections/orders/batch", json: """
            {"upsert":[{"id":"a1","title":"a","status":"open","owner":"ann"},{"id":"a2","title":"b","status":"open","owner":"ann"},
                       {"id":"b1","title":"c","status":"open","owner":"bob"}]}
            """).expect(200)
        let version = try XCTUnwrap(batch.header("Sectional-Version").flatMap { Int($0) })
        XCTAssertTrue(eventually(within: 10) { Set(receiver.deliveries.compactMap { $0.json["user"] as? String }) == ["ann", "bob"] })
        for user in ["ann", "bob"] {
            let bodies = receiver.deliveries.map { String(decoding: $0.body, as: UTF8.self) }
            XCTAssertTrue(bodies.contains(#"{"list":"orders","version":\#(version),"user":"\#(user)"}"#), "\(bodies)")
        }
        XCTAssertEqual(receiver.deliveries.count, 2, "one delivery per user, not per record")
        // A record moving from ann to carl moves both partitions: both users hear of it.
        let moved = try order(app, "a1", owner: "carl")
        XCTAssertTrue(eventually(within: 10) {
            Set(receiver.deliveries.filter { $0.version == moved }.compactMap { $0.json["user"] as? String }) == ["ann", "carl"]
        }, "\(receiver.deliveries.map(\.json))")
        XCTAssertTrue(receiver.deliveries.allSatisfy(\.signatureValid))
    }

    func testABurstOfWritesCoalescesIntoTheLatestVersion() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        let app = try TestApp(config: Self.config(receiver.url, lists: #"["all"]"#), webhookSecrets: Self.secrets)
        receiver.hold()
        let first = try order(app, "o", owner: "ann", title: "0")
        XCTAssertTrue(eventually(within: 10) { receiver.deliveries.count == 1 }, "the first delivery is on its way (and held)")
        var last = first
        for n in 1...20 { last = try order(app, "o", owner: "ann", title: "\(n)") }
        receiver.letGo()
        XCTAssertTrue(eventually(within: 10) { receiver.deliveries.contains { $0.version == last } }, "\(receiver.deliveries.map(\.json))")
        XCTAssertTrue(eventually(within: 10) { metric(app, "sectional_webhook_outbox_pending") == 0 })
        XCTAssertEqual(receiver.deliveries.map(\.version), [first, last], "twenty writes while one delivery was held: one more delivery, the last version")
        XCTAssertTrue(receiver.deliveries.allSatisfy(\.signatureValid))
    }

    /// Each webhook has a delivery thread of its own: a receiver that holds its delivery (for up
    /// to the 20 s timeout) does not delay another webhook's.
    func testAReceiverThatDoesNotAnswerDelaysOnlyItsOwnWebhook() throws {
        let held = try WebhookReceiver(secret: Self.secret)
        defer { held.stop() }
        let prompt = try WebhookReceiver(secret: Self.secret)
        defer { prompt.stop() }
        held.hold()
        let hook = #""lists": ["all"], "secretEnv": "TEST_WEBHOOK_SECRET", "timeoutSeconds": 20, "firstRetryMilliseconds": 20, "maxRetrySeconds": 1"#
        let config = Self.config(held.url, lists: #"["all"]"#).replacingOccurrences(
            of: #""webhooks": [ {"#, with: #""webhooks": [ { "url": "\#(prompt.url)", \#(hook) }, {"#)
        let app = try TestApp(config: config, webhookSecrets: Self.secrets)
        let first = try order(app, "o", owner: "ann", title: "0")
        XCTAssertTrue(eventually(within: 10) { held.deliveries.contains { $0.version == first } }, "sent to the held receiver, and held")
        let second = try order(app, "o", owner: "ann", title: "1")
        XCTAssertTrue(eventually(within: 10) { prompt.deliveries.contains { $0.version == second } },
                      "the other webhook's delivery waited for the held one: \(prompt.deliveries.map(\.json))")
        held.letGo()
        XCTAssertTrue(eventually(within: 10) { held.deliveries.contains { $0.version == second } }, "\(held.deliveries.map(\.json))")
        XCTAssertTrue(eventually(within: 10) { metric(app, "sectional_webhook_outbox_pending") == 0 })
    }

    /// The pending gauge counts the outbox while its rows are being sent, not only once the
    /// delivery thread finds nothing due: a delivery held by its receiver is pending.
    func testThePendingGaugeCountsADeliveryOnItsWay() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        let app = try TestApp(config: Self.config(receiver.url, lists: #"["all"]"#), webhookSecrets: Self.secrets)
        receiver.hold()
        let version = try order(app, "o", owner: "ann")
        XCTAssertTrue(eventually(within: 10) { receiver.deliveries.contains { $0.version == version } }, "sent, and held")
        XCTAssertTrue(eventually(within: 10) { metric(app, "sectional_webhook_outbox_pending") == 1 },
                      "the held delivery is pending: \(metric(app, "sectional_webhook_outbox_pending"))")
        receiver.letGo()
        XCTAssertTrue(eventually(within: 10) { metric(app, "sectional_webhook_outbox_pending") == 0 })
    }

    func testDeliveriesAreRetriedUntilTheReceiverComesUp() throws {
        // A port nothing listens on (connections are refused), then a receiver on it.
        let reserved = try WebhookReceiver(secret: Self.secret)
        let port = reserved.port
        reserved.stop()
        let app = try TestApp(config: Self.config("http://127.0.0.1:\(port)/hooks/sectional?from=test", lists: #"["all"]"#),
                              webhookSecrets: Self.secrets)
        let version = try order(app, "o", owner: "ann")
        XCTAssertTrue(eventually(within: 10) { metric(app, "sectional_webhook_deliveries_failed_total") >= 3 }, "retried while down")
        XCTAssertEqual(metric(app, "sectional_webhook_deliveries_succeeded_total"), 0)
        XCTAssertEqual(metric(app, "sectional_webhook_outbox_pending"), 1)
        let receiver = try WebhookReceiver(secret: Self.secret, port: port)
        defer { receiver.stop() }
        XCTAssertTrue(eventually(within: 10) { receiver.deliveries.contains { $0.version == version } }, "delivered once it is up")
        XCTAssertTrue(eventually(within: 10) { metric(app, "sectional_webhook_outbox_pending") == 0 })
        XCTAssertEqual(metric(app, "sectional_webhook_deliveries_succeeded_total"), 1)
        XCTAssertTrue(receiver.deliveries.allSatisfy(\.signatureValid))
    }

    /// A receiver that is down, with many users' rows waiting: every failed attempt is counted,
    /// but the log has one line for them (at most one per webhook every 10 s), not one per row
    /// and attempt.
    func testAReceiverThatIsDownIsLoggedOncePerIntervalNotPerRow() throws {
        let reserved = try WebhookReceiver(secret: Self.secret)
        let port = reserved.port
        reserved.stop()
        let server = try serverWithThirtyOrders(deliveringTo: "http://127.0.0.1:\(port)/hooks")
        func failed() -> Double { Self.metric(server, "sectional_webhook_deliveries_failed_total") }
        XCTAssertTrue(eventually(within: 8) { failed() >= 60 }, "every row tried and failed at least twice: \(failed())")
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
        let lines = server.log.split(separator: "\n").filter { $0.contains("\"msg\":\"webhook delivery failed; will retry\"") }
        XCTAssertEqual(lines.count, 1, "one line within 10 s, not one per attempt: \(lines.count) lines")
        XCTAssertTrue(lines.first?.contains("\"failedAttempts\":1") == true, "\(lines.prefix(2))")
    }

    /// A receiver that fails every other delivery (one bad backend of two) is not logged once
    /// per failure either: a delivery that goes through starts the count over, not the 10 s.
    func testAReceiverThatFailsHalfTheTimeIsLoggedOncePerInterval() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        receiver.answerInTurn([503, 204])
        let server = try serverWithThirtyOrders(deliveringTo: receiver.url)
        func metric(_ name: String) -> Double { Self.metric(server, name) }
        XCTAssertTrue(eventually(within: 8) { metric("sectional_webhook_deliveries_failed_total") >= 10 && metric("sectional_webhook_deliveries_succeeded_total") >= 10 },
                      "failures and successes in turn: \(metric("sectional_webhook_deliveries_failed_total")), \(metric("sectional_webhook_deliveries_succeeded_total"))")
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
        let lines = server.log.split(separator: "\n").filter { $0.contains("\"msg\":\"webhook delivery failed; will retry\"") }
        XCTAssertEqual(lines.count, 1, "one line within 10 s, not one per failure after a success: \(lines.count) lines")
    }

    /// A server of its own (SQLite, request logs at info, its log kept) whose one webhook sends
    /// `orders` to `url`, with 30 orders written, one for each of 30 users.
    private func serverWithThirtyOrders(deliveringTo url: String) throws -> ServerProcess {
        let config = folder.appendingPathComponent("sectional.json")
        try Self.config(url, lists: #"["orders"]"#).write(to: config, atomically: true, encoding: .utf8)
        let server = try ServerProcess(arguments: ["--config", config.path, "--data", folder.appendingPathComponent("db.sqlite").path],
                                       environment: Self.secrets.merging(["SECTIONAL_LOG_LEVEL": "info"]) { $1 })
        XCTAssertTrue(server.waitUntilReady())
        let client = try HTTPTestClient(port: server.port)
        for n in 0..<30 {
            let answer = try client.request("PUT", "/v1/collections/orders/records/o\(n)", headers: [("Content-Type", "application/json")],
                                            body: Array(#"{"title":"t","status":"open","owner":"user\#(n)"}"#.utf8))
            XCTAssertEqual(answer.status, 201)
        }
        return server
    }

    /// The value of metric `name` (unlabelled) in `server`'s `/metrics`; -1 when absent.
    private static func metric(_ server: ServerProcess, _ name: String) -> Double {
        let metrics = (try? HTTPTestClient(port: server.port).request("GET", "/metrics").text) ?? ""
        let line = metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? -1
    }

    func testAPendingDeliverySurvivesARestart() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        receiver.answer(503)
        var first: TestApp? = try TestApp(config: Self.config(receiver.url, lists: #"["all"]"#), folder: folder, sqlite: true,
                                          webhookSecrets: Self.secrets)
        let version = try order(try XCTUnwrap(first), "o", owner: "ann")
        XCTAssertTrue(eventually(within: 10) { receiver.deliveries.contains { $0.version == version } }, "tried and refused")
        XCTAssertTrue(eventually(within: 10) { first.map { metric($0, "sectional_webhook_deliveries_failed_total") >= 1 } ?? false })
        first = nil  // stopped with the delivery still pending
        let refused = receiver.deliveries.count
        receiver.answer(204)
        let second = try TestApp(config: Self.config(receiver.url, lists: #"["all"]"#), folder: folder, sqlite: true, webhookSecrets: Self.secrets)
        XCTAssertTrue(eventually(within: 10) { metric(second, "sectional_webhook_deliveries_succeeded_total") == 1 },
                      "the restarted server delivers what its outbox held, with no new write")
        XCTAssertTrue(eventually(within: 10) { metric(second, "sectional_webhook_outbox_pending") == 0 })
        let after = receiver.deliveries.dropFirst(refused)
        XCTAssertEqual(after.map(\.version), [version])
        XCTAssertTrue(after.allSatisfy(\.signatureValid))
    }

    /// A receiver that holds the delivery unanswered (for up to the webhook's 20 s timeout)
    /// cannot hold up a graceful stop, which is bounded by 10 s: the delivery is given up, stays
    /// in the outbox, and the next start sends it.
    func testAStopGivesUpADeliveryItsReceiverHolds() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        receiver.hold()
        var first: TestApp? = try TestApp(config: Self.config(receiver.url, lists: #"["all"]"#), folder: folder, sqlite: true,
                                          webhookSecrets: Self.secrets)
        let version = try order(try XCTUnwrap(first), "o", owner: "ann")
        XCTAssertTrue(eventually(within: 10) { receiver.deliveries.contains { $0.version == version } }, "sent, and held")
        let clock = ContinuousClock()
        let stop = clock.measure { first = nil }
        XCTAssertLessThan(stop, .seconds(10), "the stop waited for the receiver")
        receiver.letGo()
        receiver.answer(204)
        let second = try TestApp(config: Self.config(receiver.url, lists: #"["all"]"#), folder: folder, sqlite: true, webhookSecrets: Self.secrets)
        XCTAssertTrue(eventually(within: 10) { metric(second, "sectional_webhook_deliveries_succeeded_total") == 1 },
                      "the given-up delivery is sent by the next start")
        XCTAssertEqual(receiver.deliveries.last?.version, version)
    }

    /// A graceful stop is not a failed attempt: the delivery it gives up and the rows claimed with
    /// it keep their attempts (so their backoff), and no metric counts it.
    func testAStopIsNotAFailedAttempt() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        receiver.hold()
        let app = try TestApp(config: Self.config(receiver.url, lists: #"["orders"]"#), folder: folder, sqlite: true,
                              webhookSecrets: Self.secrets)
        try app.request("POST", "/v1/collections/orders/batch", json: """
            {"upsert":[{"id":"a","title":"a","status":"open","owner":"ann"},{"id":"b","title":"b","status":"open","owner":"bob"},
                       {"id":"c","title":"c","status":"open","owner":"carl"}]}
            """).expect(200)
        XCTAssertTrue(eventually(within: 10) { receiver.deliveries.count == 1 }, "one delivery sent, and held; two more claimed with it")
        app.server.stop(gracePeriod: 1)
        let metrics = app.server.metrics.render(lists: [], connections: ConnectionStatistics(), streams: (0, 0), views: (0, 0),
                                                answerCache: (0, 0), histories: [], refusedWrites: [], writer: (0, 0))
        for name in ["sent", "succeeded", "failed"] {
            XCTAssertEqual(metricValue(metrics, "sectional_webhook_deliveries_\(name)_total"), 0, name)
        }
        let store = try SQLiteStore(path: folder.appendingPathComponent("test.sqlite").path)
        defer { store.close() }
        let pending = try store.claimDeliveries(webhooks: [receiver.url], now: Int64(Date().timeIntervalSince1970 * 1000),
                                                claimUntil: .max, owner: "test", limit: 10)
        XCTAssertEqual(pending.count, 3, "released, due at once")
        XCTAssertEqual(pending.map(\.attempts), [0, 0, 0])
    }

    /// Deliveries pending for a list the webhook no longer follows are dropped at start, not
    /// sent: the config no longer asks for them.
    func testPendingDeliveriesOfAListNoLongerFollowedAreDroppedAtStart() throws {
        // A port nothing listens on: the deliveries stay pending.
        let reserved = try WebhookReceiver(secret: Self.secret)
        let url = reserved.url
        reserved.stop()
        var first: TestApp? = try TestApp(config: Self.config(url), folder: folder, sqlite: true, webhookSecrets: Self.secrets)
        try order(try XCTUnwrap(first), "o", owner: "ann")
        first = nil
        let second = try TestApp(config: Self.config(url, lists: #"["all"]"#), folder: folder, sqlite: true, webhookSecrets: Self.secrets)
        second.server.stop(gracePeriod: 1)
        let store = try SQLiteStore(path: folder.appendingPathComponent("test.sqlite").path)
        defer { store.close() }
        let pending = try store.claimDeliveries(webhooks: [url], now: Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000,
                                                claimUntil: .max, owner: "test", limit: 10)
        XCTAssertEqual(pending.map(\.list), ["all"], "the orders row (ann's) is gone")
    }

    /// On PostgreSQL the outbox is in the shared database: a delivery refused by one instance is
    /// sent by another instance on the same database, per user, signed.
    /// A receiver's 2xx the store could not record (the database away for a moment) is recorded
    /// once it is back, not sent again: the row stayed claimed until its lease ran out (about a
    /// minute here, three with the defaults), then went out a second time (exploratory pass).
    func testOnPostgreSQLAnAnswerTheStoreCouldNotRecordIsNotSentAgain() throws {
        let database = try PostgresTestDatabase(cluster: try PostgresTestDatabase.clusterURL())
        defer { database.drop() }
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        receiver.hold()
        receiver.answer(200)
        let app = try TestApp(config: Self.config(receiver.url, lists: #"["all"]"#), postgres: database.url, webhookSecrets: Self.secrets)
        let version = try order(app, "o", owner: "ann")
        XCTAssertTrue(eventually(within: 10) { receiver.deliveries.contains { $0.version == version } }, "sent, and held")
        // The database turns read-only (as a failover's standby), ending the server's sessions.
        try database.query("ALTER DATABASE \(database.name) SET default_transaction_read_only = on")
        try database.query("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)
        receiver.letGo()   // answered 200: the store cannot record it now
        XCTAssertTrue(eventually(within: 10) { metric(app, "sectional_webhook_deliveries_succeeded_total") == 1 })
        try database.query("BEGIN READ WRITE; ALTER DATABASE \(database.name) RESET default_transaction_read_only; COMMIT")
        try database.query("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)
        XCTAssertTrue(eventually(within: 20) { metric(app, "sectional_webhook_outbox_pending") == 0 }, "recorded once the database is back")
        XCTAssertEqual(receiver.deliveries.filter { $0.version == version }.count, 1, "\(receiver.deliveries.map(\.json))")
    }

    func testOnPostgreSQLAnotherInstanceSendsWhatOneLeftPending() throws {
        let database = try PostgresTestDatabase(cluster: try PostgresTestDatabase.clusterURL())
        defer { database.drop() }
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        receiver.answer(500)
        var first: TestApp? = try TestApp(config: Self.config(receiver.url), postgres: database.url, webhookSecrets: Self.secrets)
        let version = try order(try XCTUnwrap(first), "o", owner: "ann")
        XCTAssertTrue(eventually(within: 10) { Set(receiver.deliveries.map { $0.json["list"] as? String ?? "" }) == ["all", "orders"] },
                      "tried and refused: \(receiver.deliveries.map(\.json))")
        first = nil
        let refused = receiver.deliveries.count
        receiver.answer(200)
        let second = try TestApp(config: Self.config(receiver.url), postgres: database.url, webhookSecrets: Self.secrets)
        XCTAssertTrue(eventually(within: 10) { metric(second, "sectional_webhook_deliveries_succeeded_total") == 2 })
        let after = receiver.deliveries.dropFirst(refused).map { String(decoding: $0.body, as: UTF8.self) }.sorted()
        XCTAssertEqual(after, [#"{"list":"all","version":\#(version)}"#, #"{"list":"orders","version":\#(version),"user":"ann"}"#])
        XCTAssertTrue(receiver.deliveries.allSatisfy(\.signatureValid))
    }
}
