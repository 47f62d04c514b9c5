import Foundation
import SectionalClient
import TestSupport
import XCTest

/// `updates()` and `events()` over the live event stream, across a server that drops it.
final class MirrorUpdatesTests: XCTestCase {
    func testUpdatesSeeEveryVersionAndResumeAfterTheStreamDrops() async throws {
        let first = try LiveServer()
        let port = first.port
        let client = SectionalClient(baseURL: first.url)
        let people = client.collection("people")
        let list = client.list("people")
        try await people.put("p1", person("p1", "Ada", "Design"))
        let mirror = list.mirror()
        try await mirror.reload()
        let updates = Collected(mirror.updates())
        let events = Collected(list.events(reconnectDelay: 0.2))
        defer {
            updates.cancel()
            events.cancel()
        }
        var seen: [Int64] = []
        for (i, team) in ["Eng", "Ops", "Eng"].enumerated() {
            try await people.put("q\(i)", person("q\(i)", "Bo\(i)", team))
            let version = try await list.outline().version
            seen.append(version)
            await events.waitFor("event for version \(version)") { $0.version == version }
            await updates.waitFor("update to version \(version)") { $0.changes.to == version }
        }

        // The server goes away (every stream ends) and comes back on the same port and data.
        first.stop()
        let second = try LiveServer(folder: first.folder, port: port)
        XCTAssertEqual(second.port, port)
        // Both streams back before the next write: a reconnection without Last-Event-ID would be
        // greeted with the version already seen (and the check below would see it twice).
        try await waitForOpenStreams(2, port: port)
        for (i, team) in ["Sales", "Ops"].enumerated() {
            try await people.put("r\(i)", person("r\(i)", "Cy\(i)", team))
            let version = try await list.outline().version
            seen.append(version)
            await events.waitFor("event for version \(version) after the restart") { $0.version == version }
            await updates.waitFor("update to version \(version) after the restart") { $0.changes.to == version }
        }
        XCTAssertEqual(Set(seen).count, seen.count, "every write gave a new version")
        for version in seen {
            XCTAssertTrue(events.all.contains { $0.version == version }, "event for \(version)")
        }
        let last = await mirror.snapshot
        XCTAssertEqual(last?.version, seen.last)
        XCTAssertEqual(last?.sections.map(\.section.key), ["pinned", "Design", "Eng", "Ops", "Sales"])
        let versions = events.all.map(\.version)
        // Each once and in order: the reconnection sent Last-Event-ID, so the server did not repeat
        // the version the client had already seen.
        XCTAssertEqual(versions, Set(versions).sorted(), "versions arrive once each, in order")
        // Each connection's first event says so (a mirror forgets what it heard before: the
        // server may have gone back below it in between): the greeting, and the first after the
        // restart (the write's: the reconnection's Last-Event-ID was the list's version).
        XCTAssertEqual(events.all.filter(\.isFirstOnConnection).map(\.version), [versions[0], seen[3]], "\(events.all)")
    }

    /// A write between the mirror's load and its update stream's opening is not lost: a new
    /// stream starts with the list's current version, which the mirror syncs to.
    func testAWriteBeforeTheUpdateStreamOpensIsStillSeen() async throws {
        let server = try LiveServer()
        let client = SectionalClient(baseURL: server.url)
        let list = client.list("people")
        try await client.collection("people").put("p1", person("p1", "Ada", "Design"))
        let mirror = list.mirror()
        try await mirror.reload()
        try await client.collection("people").put("p2", person("p2", "Bo", "Eng"))
        let written = try await list.outline().version
        let updates = Collected(mirror.updates())
        defer { updates.cancel() }
        // No later write: only the stream's greeting can bring the mirror to `written`.
        await updates.waitFor("update to version \(written)", seconds: 10) { $0.changes.to == written }
        let snapshot = await mirror.snapshot
        XCTAssertEqual(snapshot?.version, written)
        XCTAssertEqual(snapshot?.sections.map(\.section.key), ["pinned", "Design", "Eng"])
    }

    /// Writes announced while a sync runs, and taken in by it, start no sync of their own: one
    /// sync for the burst, not one a version (writes coming faster than syncs would otherwise
    /// keep the mirror ever further behind). Before, the two writes below gave a second update to
    /// the version the first had reached.
    func testWritesOneSyncTookInStartNoMoreSyncs() async throws {
        let server = try LiveServer()
        let writer = SectionalClient(baseURL: server.url)
        let people = writer.collection("people")
        let hook = RequestHook()
        let mirror = SectionalClient(baseURL: server.url, tokenProvider: hook.provider).list("people").mirror()
        try await people.put("p1", person("p1", "Ada", "Design"))
        try await mirror.reload()
        let updates = Collected(mirror.updates())
        defer { updates.cancel() }
        try await waitForOpenStreams(1, port: server.port)
        // The write's sync: two more writes land just before its first request.
        hook.arm(before: 1) {
            try await people.put("p3", person("p3", "Cy", "Ops"))
            try await people.put("p4", person("p4", "Di", "Sales"))
        }
        try await people.put("p2", person("p2", "Bo", "Eng"))
        await updates.waitFor("the burst's update") { $0.snapshot.sections.contains { $0.section.key == "Sales" } }
        XCTAssertTrue(hook.fired)
        let burst = try await writer.list("people").outline().version
        try await people.put("p5", person("p5", "Eve", "Eng"))
        let after = try await writer.list("people").outline().version
        await updates.waitFor("update to version \(after)") { $0.changes.to == after }
        XCTAssertEqual(updates.all.map(\.changes.to), [burst, after], "one update for the burst, one for the write after it")
    }

    /// A server that comes back behind the mirror (an empty store at the same address, as a new
    /// database or one put back by a file copy would be): its stream announces a
    /// version below the mirror's, and `changes` refuses the mirror's `since` (400
    /// invalid-version). The mirror reloads, through `updates()` and through `sync()`.
    func testAMirrorAheadOfTheServerReloads() async throws {
        let first = try LiveServer()
        let port = first.port
        let client = SectionalClient(baseURL: first.url)
        let people = client.collection("people")
        let list = client.list("people")
        try await people.put("p1", person("p1", "Ada", "Design"))
        try await people.put("p2", person("p2", "Bo", "Eng"))
        let following = list.mirror(), asked = list.mirror()
        try await following.reload()
        try await asked.reload()
        let loaded = await following.snapshot
        let ahead = try XCTUnwrap(loaded?.version)
        let updates = Collected(following.updates())
        defer { updates.cancel() }
        try await waitForOpenStreams(1, port: port)

        first.stop()
        let second = try LiveServer(port: port)
        XCTAssertEqual(second.port, port)
        try await people.put("z1", person("z1", "Zoe", "Sales"))
        let behind = try await list.outline().version
        XCTAssertLessThan(behind, ahead, "the new store is behind the mirror")
        await updates.waitFor("update to version \(behind)") { $0.snapshot.version == behind }
        let followed = await following.snapshot
        XCTAssertEqual(followed?.sections.map(\.section.key), ["pinned", "Sales"])
        XCTAssertEqual(followed?.sections.flatMap(\.rows).compactMap { $0?.id }, ["me", "z1"])

        let synced = try await asked.sync()
        XCTAssertTrue(synced.changes.reload, "no diff leads back: a reload")
        XCTAssertEqual(synced.snapshot.version, behind)
        XCTAssertEqual(synced.snapshot.sections.flatMap(\.rows).compactMap { $0?.id }, ["me", "z1"])
    }

    /// The server dies during the sync an event started (the sync's first request finds it gone:
    /// a network error) and comes back on the same port and data: `updates()` tries the sync
    /// again and goes on following the list, rather than ending.
    func testUpdatesGoOnWhenTheServerDiesDuringASync() async throws {
        try await serverDiesDuringASync(backBehind: false)
    }

    /// The same, the server back on an empty store, behind the event's version (a database put
    /// back, the event's write lost with it): the sync, reading at least that version, is
    /// answered `503 not-caught-up` until it reads without it, then reloads.
    func testUpdatesReloadWhenTheServerComesBackBehindTheEvent() async throws {
        try await serverDiesDuringASync(backBehind: true)
    }

    private func serverDiesDuringASync(backBehind: Bool) async throws {
        let first = try LiveServer()
        let port = first.port
        let writer = SectionalClient(baseURL: first.url).collection("people")
        let tripwire = Tripwire()
        // Asked before each of the mirror's requests: once armed, the next one stops the server
        // (after the write that armed it is answered), so the request fails.
        let client = SectionalClient(baseURL: first.url) {
            if tripwire.take() {
                let deadline = Date().addingTimeInterval(10)
                while !tripwire.written, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
                first.stop()
                tripwire.stopped = true
            }
            return nil
        }
        let mirror = client.list("people").mirror()
        try await writer.put("p1", person("p1", "Ada", "Design"))
        try await mirror.reload()
        let updates = Collected(mirror.updates(reconnectDelay: 0.1))
        defer { updates.cancel() }
        try await waitForOpenStreams(1, port: port)

        tripwire.arm()
        let written = try await writer.put("p2", person("p2", "Bo", "Eng")).written.version
        tripwire.written = true
        let deadline = Date().addingTimeInterval(20)
        while !tripwire.stopped, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertTrue(tripwire.stopped, "the write's event started a sync")
        let second = try backBehind ? LiveServer(port: port) : LiveServer(folder: first.folder, port: port)
        XCTAssertEqual(second.port, port)
        if backBehind {
            let behind = try await client.list("people").outline().version
            XCTAssertLessThan(behind, Int64(written), "the new store is behind the event")
            await updates.waitFor("update to version \(behind)") { $0.snapshot.version == behind }
            let last = await mirror.snapshot
            XCTAssertEqual(last?.sections.flatMap(\.rows).compactMap { $0?.id }, ["me"])
            return
        }
        await updates.waitFor("update to version \(written)") { $0.snapshot.version == written }
        let later = try await writer.put("p3", person("p3", "Cy", "Ops")).written.version
        await updates.waitFor("update to version \(later)") { $0.snapshot.version == later }
        let last = await mirror.snapshot
        XCTAssertEqual(last?.sections.map(\.section.key), ["pinned", "Design", "Eng", "Ops"])
    }

    /// Polls `/metrics` until the server has `count` open event streams.
    private func waitForOpenStreams(_ count: Int, port: Int) async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let metrics = try HTTPTestClient(port: port).request("GET", "/metrics").text
            if metrics.contains("\nsectional_event_streams \(count)\n") { return }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        XCTFail("the server never had \(count) open event streams")
    }

    func testTokenProviderIsAskedForEveryRequest() async throws {
        let server = try LiveServer(token: "right")
        let asked = Counter()
        let client = SectionalClient(baseURL: server.url) {
            // The first answer is an expired token; a refresh gives the right one.
            asked.increment() == 1 ? "expired" : "right"
        }
        await assertProblem("unauthorized", 401) { try await client.collection("people").put("p1", person("p1", "Ada", "Eng")) }
        try await client.collection("people").put("p1", person("p1", "Ada", "Eng"))
        XCTAssertEqual(asked.value, 2)
        let open = SectionalClient(baseURL: server.url)
        await assertProblem("unauthorized", 401) { try await open.collection("people").delete("p1") }
        let outline = try await open.list("people").outline()
        XCTAssertEqual(outline.rowCount, 2, "reads are open")
    }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    /// Adds one; returns the new count.
    func increment() -> Int { lock.withLock { count += 1; return count } }
    var value: Int { lock.withLock { count } }
}

/// A one-shot trigger a test arms, and a request hook takes.
final class Tripwire: @unchecked Sendable {
    private let lock = NSLock()
    private var isArmed = false, isWritten = false, isStopped = false
    func arm() { lock.withLock { isArmed = true } }
    /// `true` once after ``arm()``.
    func take() -> Bool { lock.withLock { defer { isArmed = false }; return isArmed } }
    /// The write that armed it was answered.
    var written: Bool {
        get { lock.withLock { isWritten } }
        set { lock.withLock { isWritten = newValue } }
    }
    /// The hook stopped the server.
    var stopped: Bool {
        get { lock.withLock { isStopped } }
        set { lock.withLock { isStopped = newValue } }
    }
}
