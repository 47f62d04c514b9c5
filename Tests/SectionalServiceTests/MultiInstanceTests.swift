import Foundation
import Locking
@testable import SectionalService
import TestSupport
import XCTest

/// Three instances of the real server on one PostgreSQL database: writes spread over all of them
/// reach every one, in version order, and instances at the same version answer byte for byte
/// alike — outlines, pages and the tokens that chain them, ETags, `changes`, views, partitions.
final class MultiInstanceTests: PostgresDatabaseTestCase {
    private func instances(_ count: Int) throws -> [TestApp] {
        let url = try XCTUnwrap(database).url
        return try (0..<count).map { _ in try TestApp(config: MultiInstance.config, postgres: url, token: MultiInstance.token) }
    }

    func testInstancesConvergeToTheSameAnswersByteForByte() throws {
        let apps = try instances(3)
        let ports = apps.map(\.port)
        let users = ["u1", "u2", "u3", "u4"]
        // Every partition resident on every instance from the start, so each keeps its history.
        for port in ports {
            for user in users { try MultiInstance.request(port, "GET", "/v1/lists/orders?user=\(user)").expect(200) }
        }
        let view = try MultiInstance.request(ports[0], "POST", "/v1/lists/people/views", json: #"{"hidden":["Sales"]}"#)
            .expect(201).json.value("view", as: String.self)
        var generator = SplitMix64.replayable(name)

        // Writers on every instance at once: commits of one instance interleave with the others'.
        let highest = Locked(0)
        let failures = Locked<[String]>([])
        let seeds = (0..<3).map { _ in generator.next() }
        DispatchQueue.concurrentPerform(iterations: 3) { index in
            var local = SplitMix64(seed: seeds[index])
            for _ in 0..<40 {
                do {
                    let answer = try MultiInstance.randomWrite(ports[index], using: &local)
                    guard [200, 201, 204, 404].contains(answer.status) else { throw UnexpectedAnswer(description: "\(answer.status) \(answer.text)") }
                    highest.withLock { $0 = max($0, MultiInstance.version(of: answer)) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])

        // Then one write at a time on a random instance, each outline read on another one
        // (read-your-writes through minVersion), and views changed on any of them.
        var outlines: [(version: Int, sections: [ChangesApplier.Section])] = []
        for step in 0..<14 {
            let writer = ports[Int.random(in: 0..<3, using: &generator)]
            let toggle = step == 3 || step == 7
            if toggle {
                let toggled = try MultiInstance.request(writer, "POST", "/v1/lists/people/views/\(view)/sections/1/toggle")
                XCTAssertEqual(toggled.status, 200, toggled.text)
                // Outlines seen through the view before it changed are not what `changes` diffs from.
                outlines = []
                let changed = try MultiInstance.request(writer, "GET", "/v1/lists/people/views/\(view)").text
                for port in ports {
                    XCTAssertTrue(eventually(within: 10) { (try? MultiInstance.request(port, "GET", "/v1/lists/people/views/\(view)").text) == changed })
                }
            } else {
                let answer = try MultiInstance.randomWrite(writer, using: &generator)
                XCTAssertTrue([200, 201, 204, 404].contains(answer.status), answer.text)
                highest.withLock { $0 = max($0, MultiInstance.version(of: answer)) }
            }
            let reader = ports[Int.random(in: 0..<3, using: &generator)]
            XCTAssertTrue(MultiInstance.catchUp(reader, to: highest.withLock { $0 }))
            if !toggle { outlines.append(try MultiInstance.outline(reader, view: view)) }
        }
        let last = highest.withLock { $0 }
        XCTAssertGreaterThan(last, 100, "every write took a version")
        for port in ports { XCTAssertTrue(MultiInstance.catchUp(port, to: last), "port \(port) caught up") }
        // A view change has no version of its own in answers: wait until every instance shows it.
        let expectedView = try MultiInstance.request(ports[0], "GET", "/v1/lists/people/views/\(view)").text
        for port in ports {
            XCTAssertTrue(eventually(within: 10) { (try? MultiInstance.request(port, "GET", "/v1/lists/people/views/\(view)").text) == expectedView })
        }

        // Byte for byte, every read, with the first instance's page tokens used on the others.
        let sinces = outlines.map(\.version)
        let reference = try MultiInstance.answers(ports[0], views: [view], users: users, sinces: sinces)
        // Every target asked for is answered, and each walk of pages has its first page, so the
        // comparison is not vacuous. Counted from the targets, not a fixed number: the outlines
        // read after the last view change may all be at one version, when the six writes there
        // all went to orders or changed nothing (half of the random writes are orders': a seed in
        // about 60 makes them all so, and a fixed "more than 25" failed with 24).
        let distinctSinces = Set(sinces).count
        XCTAssertFalse(sinces.isEmpty, "outlines were read after the last view change")
        XCTAssertGreaterThanOrEqual(reference.count, 3 + 2 + 2 * distinctSinces + users.count * (2 + distinctSinces) + 2)
        for port in ports.dropFirst() {
            for (target, expected) in reference.sorted(by: { $0.key < $1.key }) {
                let answer = MultiInstance.describe(try MultiInstance.request(port, "GET", target))
                XCTAssertEqual(answer, expected, "\(target) on port \(port)")
            }
        }

        // Every retained version's diff applies to its outline and gives the current one.
        let current = try MultiInstance.outline(ports[1], view: view)
        for old in outlines {
            let answer = try MultiInstance.request(ports[2], "GET", "/v1/lists/people/changes?since=\(old.version)&view=\(view)")
            XCTAssertEqual(try answer.json["reload"] as? Bool, false, answer.text)
            XCTAssertNoThrow(try ChangesApplier.apply(old: old.sections, changes: answer.body, new: current.sections),
                             "since \(old.version): \(answer.text)")
        }
    }

    /// Large batches on two instances at once, each big enough for its lists' edits to be made
    /// while PostgreSQL commits it (when a commit comes after another instance's version not
    /// applied yet, the edit is dropped: `EditsAheadTests` makes that happen for sure). Both
    /// instances, and a third started afterwards (which builds the lists from the records),
    /// then answer alike byte for byte.
    func testLargeBatchesOnTwoInstancesAtOnceMatchAFreshStart() throws {
        let apps = try instances(2)
        let ports = apps.map(\.port)
        let teams = ["Design", "Sales", "Support", "Research"]  // none hidden: every row is on a page
        let highest = Locked(0)
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            for round in 0..<6 {
                let upserts = (0..<300).map { k -> String in
                    let id = (k * 7 + round * 31 + index * 13) % 400
                    return #"{"id":"b\#(id)","name":"N\#(index)-\#((k * 13 + round) % 50)","team":"\#(teams[(k + round + index) % teams.count])"}"#
                }
                do {
                    let answer = try MultiInstance.request(ports[index], "POST", "/v1/collections/people/batch",
                                                           json: #"{"upsert":[\#(upserts.joined(separator: ","))]}"#)
                    guard answer.status == 200 else { throw UnexpectedAnswer(description: "\(answer.status) \(answer.text)") }
                    highest.withLock { $0 = max($0, MultiInstance.version(of: answer)) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        let last = highest.withLock { $0 }
        for port in ports { XCTAssertTrue(MultiInstance.catchUp(port, to: last), "port \(port) caught up") }
        let fresh = try TestApp(config: MultiInstance.config, postgres: try XCTUnwrap(database).url, token: MultiInstance.token)
        XCTAssertTrue(MultiInstance.catchUp(fresh.port, to: last))
        let reference = try MultiInstance.answers(fresh.port, views: [], users: [], sinces: [])
        XCTAssertTrue(reference["/v1/lists/people"]?.contains(#""totalRowCount":401"#) == true, reference["/v1/lists/people"] ?? "")
        for port in ports {
            for (target, expected) in reference.sorted(by: { $0.key < $1.key }) {
                XCTAssertEqual(MultiInstance.describe(try MultiInstance.request(port, "GET", target)), expected, "\(target) on port \(port)")
            }
        }
    }

    func testAWriteOnOneInstanceMovesOnlyItsPartitionsOnAnother() throws {
        let apps = try instances(2)
        let (a, b) = (apps[0].port, apps[1].port)
        try MultiInstance.request(a, "PUT", "/v1/collections/orders/records/o1", json: #"{"title":"T","status":"open","owner":"u1"}"#).expect(201)
        let written = MultiInstance.version(of: try MultiInstance.request(a, "PUT", "/v1/collections/orders/records/o2",
                                                                           json: #"{"title":"T","status":"open","owner":"u2"}"#).expect(201))
        XCTAssertTrue(MultiInstance.catchUp(b, to: written))
        let before = try ["u1", "u2"].map { try MultiInstance.request(b, "GET", "/v1/lists/orders?user=\($0)").expect(200) }
        // o1 moves from u1 to u3: u1 and u3 move on the other instance, u2 keeps its version and ETag.
        let moved = MultiInstance.version(of: try MultiInstance.request(a, "PUT", "/v1/collections/orders/records/o1",
                                                                         json: #"{"title":"T","status":"open","owner":"u3"}"#).expect(200))
        XCTAssertTrue(MultiInstance.catchUp(b, to: moved))
        let u1 = try MultiInstance.request(b, "GET", "/v1/lists/orders?user=u1").expect(200)
        let u2 = try MultiInstance.request(b, "GET", "/v1/lists/orders?user=u2").expect(200)
        let u3 = try MultiInstance.request(b, "GET", "/v1/lists/orders?user=u3").expect(200)
        XCTAssertEqual(try u1.json.value("version", as: Int.self), moved)
        XCTAssertEqual(try u1.json.value("totalRowCount", as: Int.self), 0)
        XCTAssertEqual(try u3.json.value("version", as: Int.self), moved)
        XCTAssertEqual(u2.header("ETag"), before[1].header("ETag"))
        XCTAssertEqual(u2.body, before[1].body)
        XCTAssertEqual(try MultiInstance.request(a, "GET", "/v1/lists/orders?user=u3").body, u3.body)
    }

    /// Writes Ada, of Sales, on instance `a` and waits until `b` has her: a Sales section to toggle.
    private func adaInSales(written a: Int, readBy b: Int) throws {
        let written = MultiInstance.version(of: try MultiInstance.request(a, "PUT", "/v1/collections/people/records/p1",
                                                                           json: #"{"name":"Ada","team":"Sales"}"#).expect(201))
        XCTAssertTrue(MultiInstance.catchUp(b, to: written), "the Sales section is there to toggle")
    }

    func testAViewMadeOnOneInstanceWorksOnAnother() throws {
        let apps = try instances(2)
        let (a, b) = (apps[0].port, apps[1].port)
        try adaInSales(written: a, readBy: b)
        let view = try MultiInstance.request(a, "POST", "/v1/lists/people/views", json: #"{"hidden":["Sales"]}"#)
            .expect(201).json.value("view", as: String.self)
        // At once, before the change log brings it: the store is asked.
        XCTAssertEqual(try MultiInstance.request(b, "GET", "/v1/lists/people/views/\(view)").status, 200)
        try MultiInstance.request(b, "POST", "/v1/lists/people/views/\(view)/sections/1/toggle").expect(200)
        let shown = try MultiInstance.request(b, "GET", "/v1/lists/people/views/\(view)").text
        XCTAssertTrue(eventually(within: 10) { (try? MultiInstance.request(a, "GET", "/v1/lists/people/views/\(view)").text) == shown },
                      "a change on the other instance arrives")
        try MultiInstance.request(a, "DELETE", "/v1/lists/people/views/\(view)").expect(204)
        XCTAssertTrue(eventually(within: 10) { (try? MultiInstance.request(b, "GET", "/v1/lists/people/views/\(view)").status) == 404 },
                      "a deleted view goes everywhere")
    }

    /// A change of a view answers the version to read it at: a read of the view on another
    /// instance with that `minVersion` sees the change (it saw the old state most of the time).
    func testAViewChangeIsReadAtItsVersionOnAnotherInstance() throws {
        let apps = try instances(2)
        let (a, b) = (apps[0].port, apps[1].port)
        try adaInSales(written: a, readBy: b)
        let view = try MultiInstance.request(a, "POST", "/v1/lists/people/views").expect(201).json.value("view", as: String.self)
        for round in 0..<20 {
            let toggled = try MultiInstance.request(b, "POST", "/v1/lists/people/views/\(view)/sections/1/toggle").expect(200)
            let version = try XCTUnwrap(toggled.header("Sectional-Version"), "round \(round)")
            let hidden: Bool = try toggled.json.value("section", as: [String: Any].self).value("hidden")
            let read = try MultiInstance.request(a, "GET", "/v1/lists/people/views/\(view)?minVersion=\(version)").expect(200)
            let keys: [String] = try read.json.value("hidden")
            XCTAssertEqual(keys.contains("Sales"), hidden, "round \(round): \(read.text)")
        }
    }

    /// A client that wrote on one instance (or heard the version on its event stream) and asks
    /// another for `changes?since` that version at once: the other waits until it has applied it
    /// (it answered `400 invalid-version`, which a mirror takes as a database gone back, and
    /// reloads); a version the database never had is still `400`.
    func testChangesSinceAVersionAnotherInstanceMadeWaitsForIt() throws {
        let apps = try instances(2)
        let (a, b) = (apps[0].port, apps[1].port)
        for round in 0..<20 {
            let written = MultiInstance.version(of: try MultiInstance.request(a, "PUT", "/v1/collections/people/records/p\(round)",
                                                                               json: #"{"name":"Ada","team":"Sales"}"#).expect(201))
            let answer = try MultiInstance.request(b, "GET", "/v1/lists/people/changes?since=\(written)")
            XCTAssertEqual(answer.status, 200, "round \(round): \(answer.text.prefix(300))")
        }
        let far = try MultiInstance.request(b, "GET", "/v1/lists/people/changes?since=999999999999")
        XCTAssertEqual(far.slug, "invalid-version", far.text)

        // An instance that does not catch up within the wait (its follower stopped here, as a
        // database it cannot reach would): the version is in the database, so not caught up.
        apps[1].server.follower?.stop()
        let written = MultiInstance.version(of: try MultiInstance.request(a, "PUT", "/v1/collections/people/records/late",
                                                                           json: #"{"name":"Bo","team":"Sales"}"#).expect(201))
        let behind = try MultiInstance.request(b, "GET", "/v1/lists/people/changes?since=\(written)")
        XCTAssertEqual(behind.slug, "not-caught-up", behind.text)
        XCTAssertEqual(behind.header("Retry-After"), "1")
    }

    /// A client that heard version W on one instance's event stream reconnects to another that
    /// has not applied W yet (round-robin behind nginx): the other waits for W, then hears
    /// nothing it had and the next version. Answered at once, it took W for a version it never
    /// had and told the client its older one: versions going back, which a mirror reads as a
    /// database gone back (a reload).
    func testAnEventStreamReconnectingToAnInstanceBehindWaitsForItsLastEventID() throws {
        let apps = try instances(2)
        let (a, b) = (apps[0].port, apps[1].port)
        let behind = try XCTUnwrap(apps[1].server.lists)
        // B applies nothing while the test holds its writer (the follower applies under it).
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            behind.writer.withLock { _ in
                held.signal()
                release.wait()
            }
            done.signal()
        }
        held.wait()
        var released = false
        defer { if !released { release.signal() } }
        let written = MultiInstance.version(of: try MultiInstance.request(a, "PUT", "/v1/collections/people/records/heard",
                                                                           json: #"{"name":"Ada","team":"Sales"}"#).expect(201))
        XCTAssertLessThan(behind.applied.current, Int64(written), "B is behind")
        let client = try HTTPTestClient(port: b, timeoutSeconds: 5)
        try client.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: \(written)\r\n\r\n")
        // Parked until B applies it (the gauge of reads waiting for a version), then let go.
        let deadline = Date().addingTimeInterval(5)
        var parked = false
        while !parked && Date() < deadline {
            parked = metricValue(try MultiInstance.request(b, "GET", "/metrics").text, "sectional_reads_waiting_for_version") == 1
        }
        XCTAssertTrue(parked, "the stream waits for the version its client heard")
        release.signal()
        released = true
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        let next = MultiInstance.version(of: try MultiInstance.request(a, "PUT", "/v1/collections/people/records/after",
                                                                        json: #"{"name":"Bo","team":"Sales"}"#).expect(201))
        let text = try client.readUntil("\"version\":\(next)}")
        let heard = text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("id: ") }.compactMap { Int($0.dropFirst(4)) }
        XCTAssertEqual(heard, [next], "nothing the client had, then the next version: \(text.debugDescription)")
    }

    func testOfTwoConditionalWritesOnTwoInstancesOneWins() throws {
        let apps = try instances(2)
        let ports = apps.map(\.port)
        var tag = try XCTUnwrap(try MultiInstance.request(ports[0], "PUT", "/v1/collections/people/records/p1",
                                                          json: #"{"name":"Ada","team":"Sales"}"#).expect(201).header("ETag"))
        for round in 0..<15 {
            let statuses = Locked<[Int]>([])
            let expected = tag
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let answer = try? MultiInstance.request(ports[index], "PUT", "/v1/collections/people/records/p1",
                                                        json: "{\"name\":\"R\(round)-\(index)\",\"team\":\"Sales\"}",
                                                        headers: [("If-Match", expected)])
                statuses.withLock { $0.append(answer?.status ?? 0) }
            }
            XCTAssertEqual(statuses.withLock { $0.sorted() }, [200, 412], "round \(round): exactly one write expecting \(expected) wins")
            tag = try XCTUnwrap(try MultiInstance.request(ports[1], "GET", "/v1/collections/people/records/p1").expect(200).header("ETag"))
        }
    }

    /// Patches of different members of one record sent to two instances at once: each merges
    /// into the record as committed (inside the commit), so none is lost.
    func testPatchesOnTwoInstancesAtOnceLoseNothing() throws {
        let apps = try instances(2)
        let ports = apps.map(\.port)
        try MultiInstance.request(ports[0], "PUT", "/v1/collections/people/records/p1", json: #"{"name":"Ada","team":"Sales"}"#).expect(201)
        let each = 30
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { writer in
            for step in 0..<each {
                let field = "f\(writer)_\(step)"
                let answer = try? HTTPTestClient(port: ports[writer % 2]).request(
                    "PATCH", "/v1/collections/people/records/p1",
                    headers: MultiInstance.headers + [("Content-Type", "application/merge-patch+json")],
                    body: Array("{\"\(field)\":\(step)}".utf8))
                if answer?.status != 200 { failures.withLock { $0.append("\(field): \(answer?.status ?? 0) \(answer?.text ?? "")") } }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        let stored = try MultiInstance.request(ports[1], "GET", "/v1/collections/people/records/p1").expect(200).text
        let lost = (0..<4).flatMap { writer in (0..<each).map { "\"f\(writer)_\($0)\":\($0)" } }.filter { !stored.contains($0) }
        XCTAssertEqual(lost, [], "patches lost: \(stored)")
    }

    func testADefinitionChangedOnOneInstanceIsServedByTheOthers() throws {
        let apps = try instances(2)
        let (a, b) = (apps[0].port, apps[1].port)
        try MultiInstance.request(a, "PUT", "/v1/collections/people/records/p1", json: #"{"name":"Ada","team":"Sales"}"#).expect(201)
        let definition = """
            { "title": "Crew", "sections": [ { "key": "all", "source": "people", "title": "All", "row": { "title": "{name}" } } ] }
            """
        let changed = MultiInstance.version(of: try MultiInstance.request(a, "PUT", "/v1/lists/people/definition", json: definition).expect(200))
        // A record written on the other instance after it served the change. (Had one been
        // committed before its follower reached the change, the list would be built with it, at
        // its version: see docs/postgres.md and FollowedDefinitionTests.)
        XCTAssertTrue(MultiInstance.catchUp(b, to: changed))
        let after = MultiInstance.version(of: try MultiInstance.request(b, "PUT", "/v1/collections/people/records/p2",
                                                                         json: #"{"name":"Bea","team":"Sales"}"#).expect(201))
        XCTAssertGreaterThan(after, changed)
        for port in [a, b] {
            XCTAssertTrue(MultiInstance.catchUp(port, to: after))
            let outline = try MultiInstance.request(port, "GET", "/v1/lists/people").expect(200).json
            XCTAssertEqual(try outline.value("title", as: String.self), "Crew", "port \(port)")
            XCTAssertEqual(try outline.value("totalRowCount", as: Int.self), 2, "port \(port)")
        }
        XCTAssertEqual(try MultiInstance.request(a, "GET", "/v1/lists/people/rows").body, try MultiInstance.request(b, "GET", "/v1/lists/people/rows").body)
        XCTAssertEqual(try MultiInstance.request(a, "GET", "/v1/lists/people/changes?since=\(changed)").body,
                       try MultiInstance.request(b, "GET", "/v1/lists/people/changes?since=\(changed)").body)
    }

    /// Two instances creating the same new list at once: the database orders the two changes,
    /// so one answers 201 (created) and the other 200 (it replaced the first), never both 201.
    func testOfTwoInstancesCreatingOneListAtOnceOneCreatesIt() throws {
        let apps = try instances(2)
        let ports = [apps[0].port, apps[1].port]
        for round in 0..<6 {
            let statuses = Locked<[Int]>([])
            let group = DispatchGroup()
            for (k, port) in ports.enumerated() {
                group.enter()
                Thread {
                    let definition = #"{ "title": "T\#(k)", "sections": [ { "key": "a", "rows": [ { "id": "r" } ] } ] }"#
                    let status = (try? MultiInstance.request(port, "PUT", "/v1/lists/race\(round)/definition", json: definition).status) ?? -1
                    statuses.withLock { $0.append(status) }
                    group.leave()
                }.start()
            }
            XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
            XCTAssertEqual(statuses.withLock { $0 }.sorted(), [200, 201], "round \(round)")
        }
    }

    /// Two instances changing one list's definition at once, both expecting the same one: the
    /// condition is checked in each change's commit, so one is made (200) and the other refused
    /// (412), never both made (a lost update).
    func testOfTwoDefinitionChangesOnTwoInstancesExpectingOneTagOneWins() throws {
        let apps = try instances(2)
        let ports = apps.map(\.port)
        var tag = try XCTUnwrap(try MultiInstance.request(ports[0], "GET", "/v1/lists/people/definition").expect(200).header("ETag"))
        for round in 0..<10 {
            let outcomes = Locked<[(status: Int, tag: String?)]>([])
            let expected = tag
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let definition = #"{ "title": "R\#(round)-\#(index)", "sections": [ { "key": "a", "rows": [ { "id": "r" } ] } ] }"#
                let answer = try? MultiInstance.request(ports[index], "PUT", "/v1/lists/people/definition", json: definition,
                                                        headers: [("If-Match", expected)])
                outcomes.withLock { $0.append((answer?.status ?? 0, answer?.header("ETag"))) }
            }
            let all = outcomes.withLock { $0 }
            XCTAssertEqual(all.map(\.status).sorted(), [200, 412], "round \(round): exactly one change expecting \(expected) is made")
            tag = try XCTUnwrap(all.first { $0.status == 200 }?.tag, "round \(round)")
        }
    }

    func testSeedsLoadOnceWhenInstancesStartTogether() throws {
        let url = try XCTUnwrap(database).url
        let folder = temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let people = (0..<50).map { "{\"id\":\"p\($0)\",\"name\":\"N\($0)\",\"team\":\"T\($0 % 4)\"}" }
        try ("[" + people.joined(separator: ",") + "]").write(to: folder.appendingPathComponent("people.json"), atomically: true, encoding: .utf8)
        let config = MultiInstance.config.replacingOccurrences(of: #""lists": {"#, with: #""seed": { "people": "people.json" }, "lists": {"#)
        let started = Started()
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            let app = Result { try TestApp(config: config, folder: folder, postgres: url, token: MultiInstance.token) }
            started.lock.withLock { started.apps.append(app) }
        }
        let apps = try started.apps.map { try $0.get() }
        XCTAssertEqual(apps.count, 3)
        let database = try XCTUnwrap(self.database)
        XCTAssertEqual(try database.query("SELECT count(*), max(sequence) FROM changes WHERE collection = 'people'"), [["50", "1"]],
                       "one commit of the seed, logged once")
        let outlines = try apps.map { try MultiInstance.request($0.port, "GET", "/v1/lists/people").expect(200) }
        XCTAssertEqual(try outlines[0].json.value("totalRowCount", as: Int.self), 51)
        XCTAssertEqual(Set(outlines.map(\.body)).count, 1, "every instance answers alike")
    }
}

/// Servers started on several threads at once.
private final class Started: @unchecked Sendable {
    let lock = NSLock()
    var apps: [Result<TestApp, Error>] = []
}
