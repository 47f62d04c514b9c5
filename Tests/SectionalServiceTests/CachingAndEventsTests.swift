import Foundation
import TestSupport
import XCTest

final class CachingAndEventsTests: XCTestCase {
    func testEntityTagsAnswer304UntilTheListChanges() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        for target in ["/v1/lists/people", "/v1/lists/people/rows?pageSize=1", "/v1/lists/people/tags/0",
                       "/v1/lists/people/rows/p1", "/v1/lists/people/sections/1/rows", "/v1/lists/people/sections?type=team",
                       "/v1/lists/people/index-path?sectionType=team&rowType=person"] {
            let first = try app.get(target)
            XCTAssertEqual(first.status, 200, target)
            let tag = try XCTUnwrap(first.header("ETag"), target)
            let again = try app.request("GET", target, headers: [("If-None-Match", tag)])
            XCTAssertEqual(again.status, 304, target)
            XCTAssertEqual(again.header("ETag"), tag)
            XCTAssertTrue(again.body.isEmpty)
            XCTAssertEqual(try app.request("GET", target, headers: [("If-None-Match", "\"other\", W/\(tag)")]).status, 304)
            // The list on two lines is one list (RFC 9110 §5.3).
            XCTAssertEqual(try app.request("GET", target, headers: [("If-None-Match", "\"other\""), ("If-None-Match", tag)]).status, 304)
            XCTAssertEqual(try app.request("HEAD", target, headers: [("If-None-Match", tag)]).status, 304)
        }
        // A 304 tells what its 200 would: the same tag (the gzip one only when the 200 is
        // gzipped) and the same Content-Length (RFC 9110 §8.6, §15.4.5).
        try app.seed((2...40).map { ("p\($0)", "Person \($0)", "Design") })
        for target in ["/v1/lists/people/tags/0", "/v1/lists/people/rows?pageSize=30"] {
            for encoding in ["gzip", "identity"] {
                let full = try app.request("GET", target, headers: [("Accept-Encoding", encoding)])
                let tag = try XCTUnwrap(full.header("ETag"))
                let revalidated = try app.request("GET", target, headers: [("Accept-Encoding", encoding), ("If-None-Match", tag)])
                XCTAssertEqual(revalidated.status, 304, target)
                XCTAssertEqual(revalidated.header("ETag"), tag, "\(target) \(encoding)")
                XCTAssertEqual(revalidated.header("Content-Length"), full.header("Content-Length"), "\(target) \(encoding)")
            }
        }
        XCTAssertEqual(try app.request("GET", "/v1/lists/people/rows?pageSize=30", headers: [("Accept-Encoding", "gzip")]).header("Content-Encoding"), "gzip",
                       "the large answer is gzipped")
        let tag = try XCTUnwrap(try app.get("/v1/lists/people").header("ETag"))
        // If-Match on a read: only for a tag of the answer, compared strongly, and before
        // If-None-Match (RFC 9110 §13.1.1, §13.2.2).
        for (conditions, status) in [([("If-Match", tag)], 200), ([("If-Match", "*")], 200), ([("If-Match", "\"nope\"")], 412),
                                     ([("If-Match", "W/\(tag)")], 412), ([("If-Match", "\"nope\""), ("If-None-Match", tag)], 412),
                                     ([("If-Match", tag), ("If-None-Match", tag)], 304)] {
            let answer = try app.request("GET", "/v1/lists/people", headers: conditions)
            XCTAssertEqual(answer.status, status, "\(conditions)")
            if status == 412 { XCTAssertEqual(answer.slug, "precondition-failed") }
        }
        // A condition applies only to what would be a success (RFC 9110 §13.2.1): every read of
        // the list shares its tag, yet a row that is not there is still 404, a bad parameter 400.
        for (target, status) in [("/v1/lists/people/tags/999999", 404), ("/v1/lists/people/rows/nobody", 404),
                                 ("/v1/lists/people/rows?pageSize=-1", 400), ("/v1/lists/people/sections", 400)] {
            for condition in [tag, "*"] {
                XCTAssertEqual(try app.request("GET", target, headers: [("If-None-Match", condition)]).status, status, "\(target) \(condition)")
            }
        }
        let view = try app.createView(#"{"hidden":["Design"]}"#)
        XCTAssertNotEqual(try app.get("/v1/lists/people?view=\(view)").header("ETag"), tag, "the view is part of the tag")
        try app.seed([("p2", "Grace", "Design")])
        let changed = try app.request("GET", "/v1/lists/people", headers: [("If-None-Match", tag)])
        XCTAssertEqual(changed.status, 200, "a write changes the tag")
        XCTAssertNotEqual(changed.header("ETag"), tag)
    }

    /// A write's version reaches an open stream (how fast is `make bench`'s to measure: 1,000
    /// streams, 400,000 events).
    func testAWritesVersionReachesAnOpenStream() throws {
        let app = try TestApp()
        let client = try HTTPTestClient(port: app.port, timeoutSeconds: 5)
        try client.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readUntil(": connected")
        XCTAssertTrue(head.contains("Content-Type: text/event-stream"), head)
        XCTAssertEqual(try app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#).status, 201)
        let version = try app.version()
        let event = try client.readUntil("\"version\":\(version)}")
        XCTAssertTrue(event.contains("id: \(version)\nevent: version\ndata: {\"list\":\"people\",\"version\":\(version)}"), event)
    }

    /// `changes` and event streams carry no tag, so an `If-Match` naming one fails as on any read
    /// whose tag it does not name; `*` holds; a request that is wrong anyway gets its own error.
    func testIfMatchOnChangesAndEventsHoldsOnlyForAStar() throws {
        let app = try TestApp()
        let version = try app.version()
        for target in ["/v1/lists/people/changes?since=\(version)", "/v1/lists/people/events"] {
            let failed = try app.request("GET", target, headers: [("If-Match", #""x""#)])
            XCTAssertEqual(failed.status, 412, target)
            XCTAssertEqual(failed.slug, "precondition-failed", target)
        }
        XCTAssertEqual(try app.request("GET", "/v1/lists/people/changes?since=\(version)", headers: [("If-Match", #""x", *"#)]).status, 200)
        XCTAssertEqual(try app.request("GET", "/v1/lists/people/changes?since=x", headers: [("If-Match", #""x""#)]).slug, "invalid-version")
        XCTAssertEqual(try app.request("GET", "/v1/lists/nothing/events", headers: [("If-Match", #""x""#)]).slug, "list-not-found")
    }

    func testReconnectingWithAnOlderLastEventIDGetsAnEventAtOnce() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let version = try app.version()
        let client = try HTTPTestClient(port: app.port, timeoutSeconds: 5)
        try client.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: 0\r\n\r\n")
        XCTAssertTrue(try client.readUntil("event: version").contains("id: \(version)"))
        XCTAssertEqual(try app.get("/v1/lists/nothing/events").slug, "list-not-found")
    }

    /// `?view=` on the event stream is checked as on every read: a view that is not there (a
    /// deleted one, another list's) is `404 view-not-found`; one that is opens the stream. It
    /// was ignored, and a client naming a deleted view was never told.
    func testAViewNamedOnTheEventStreamIsChecked() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        XCTAssertEqual(try app.get("/v1/lists/people/events?view=nothing").slug, "view-not-found")
        let view = try app.createView()
        let client = try HTTPTestClient(port: app.port, timeoutSeconds: 5)
        try client.send("GET /v1/lists/people/events?view=\(view) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(try client.readUntil("event: version").hasPrefix("HTTP/1.1 200"))
        try app.request("DELETE", "/v1/lists/people/views/\(view)").expect(204)
        XCTAssertEqual(try app.get("/v1/lists/people/events?view=\(view)").slug, "view-not-found")
    }

    /// A `Last-Event-ID` past the list's version was never this server's (a memory store
    /// restarted, a store restored from a backup): the client hears the current version and the next.
    func testALastEventIDPastTheListsVersionIsTakenAsUnknown() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let version = try XCTUnwrap(app.get("/v1/lists/people").json["version"] as? Int)
        let client = try HTTPTestClient(port: app.port, timeoutSeconds: 5)
        try client.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: \(version + 1000)\r\n\r\n")
        XCTAssertTrue(try client.readUntil("\"version\":\(version)}").contains("id: \(version)\n"))
        XCTAssertEqual(try app.put("people", "p2", #"{"name":"Grace","team":"Design"}"#).status, 201)
        let next = try XCTUnwrap(app.get("/v1/lists/people").json["version"] as? Int)
        XCTAssertTrue(try client.readUntil("\"version\":\(next)}").contains("id: \(next)\n"))
    }

    func testLastEventIDEqualToTheCurrentVersionSendsNoDuplicateAndAskForARetryDelay() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let version = try XCTUnwrap(app.get("/v1/lists/people").json["version"] as? Int)
        let client = try HTTPTestClient(port: app.port, timeoutSeconds: 5)
        try client.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: \(version)\r\n\r\n")
        XCTAssertTrue(try client.readUntil(": connected").contains("retry: 2000\n"), "the stream says how long to wait before reconnecting")
        XCTAssertEqual(try app.put("people", "p2", #"{"name":"Grace","team":"Design"}"#).status, 201)
        let next = try XCTUnwrap(app.get("/v1/lists/people").json["version"] as? Int)
        // Events arrive in order, so an event for the version the client had would come before this one.
        let text = try client.readUntil("\"version\":\(next)}")
        XCTAssertFalse(text.contains("id: \(version)\n"), text)
        XCTAssertEqual(text.components(separatedBy: "event: version").count - 1, 1, text)
    }

    /// HEAD of the event stream: its fields and no content, so the next answer on the same
    /// connection starts right after them (libmicrohttpd ended a streamed HEAD answer with the
    /// last chunk, `0\r\n\r\n`, which the next answer's reader took for its status line).
    func testHeadOfTheEventStreamSendsNoContentAndOpensNoStream() throws {
        let app = try TestApp()
        let client = try app.client()
        let head = try client.request("HEAD", "/v1/lists/people/events")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Type"), "text/event-stream")
        let next = try client.request("GET", "/healthz")
        XCTAssertEqual(next.status, 200, "the kept-alive connection's next answer")
        XCTAssertEqual(next.text, #"{"status":"ok"}"#)
        XCTAssertEqual(metric("sectional_event_streams", app), 0, "no stream stays open for a HEAD")
    }

    func testAStalledEventClientIsCutOffAndNeverHoldsUpWrites() throws {
        let app = try TestApp()
        // A client with a small receive window that reads nothing after its request.
        let stalled = try HTTPTestClient(port: app.port, receiveBufferBytes: 4096)
        try stalled.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(eventually { self.metric("sectional_event_streams", app) == 1 })
        let writer = try app.client()
        var writes = 0
        // ~70 bytes an event: the 64 KiB the stream lets wait plus the socket buffers fill within
        // a few thousand writes; 12,000 is far more than enough.
        while writes < 12_000 {
            let answer = try writer.request("PUT", "/v1/collections/people/records/p\(writes % 10)",
                                            headers: [("Content-Type", "application/json")],
                                            body: Array("{\"name\":\"n\(writes)\",\"team\":\"T\"}".utf8))
            XCTAssertEqual(answer.status, writes < 10 ? 201 : 200, "writes are answered while the client stalls")
            writes += 1
            if writes % 100 == 0, metric("sectional_event_streams", app) == 0 { break }
        }
        XCTAssertTrue(eventually { self.metric("sectional_event_streams", app) == 0 }, "the stalled stream is closed after \(writes) writes")
        let last = try XCTUnwrap(app.get("/v1/lists/people").json["version"] as? Int)
        // The client was disconnected: what reached it ends (EOF) well before the last version.
        let received = try stalled.readUntilClosed()
        XCTAssertTrue(received.contains("event: version"), "it got the events sent before it stalled")
        XCTAssertFalse(received.contains("\"version\":\(last)}"), "later events were dropped, not delivered")
        XCTAssertEqual(try app.get("/v1/lists/people").json["totalRowCount"] as? Int, 11)
    }

    func testAnEventClientThatHangsUpFreesItsStreamWithinSeconds() throws {
        let app = try TestApp()
        var client: HTTPTestClient? = try HTTPTestClient(port: app.port)
        try client?.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client?.readUntil(": connected")
        XCTAssertEqual(metric("sectional_event_streams", app), 1)
        client = nil
        // Well before the 15 s keep-alive that used to be the first sign of a vanished client.
        XCTAssertTrue(eventually(within: 3) { self.metric("sectional_event_streams", app) == 0 })
    }

    func testEventStreamsPastTheLimitAreRefusedWithRetryAfterUntilOneCloses() throws {
        let app = try TestApp(config: #"{ "server": { "maxEventStreams": 2 },"# + TestApp.teamsConfig.dropFirst())
        var open: [HTTPTestClient] = []
        for _ in 0..<2 {
            let client = try HTTPTestClient(port: app.port)
            try client.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try client.readUntil(": connected")
            open.append(client)
        }
        let refused = try app.get("/v1/lists/people/events")
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.slug, "too-many-event-streams")
        XCTAssertEqual(refused.header("Content-Type"), "application/problem+json")
        XCTAssertEqual(refused.header("Retry-After"), "5")
        XCTAssertEqual(metric("sectional_event_streams_refused_total", app), 1)
        XCTAssertEqual(metric("sectional_event_streams", app), 2)
        XCTAssertEqual(try app.get("/healthz").status, 200, "other requests are still served")
        open.removeFirst()
        XCTAssertTrue(eventually(within: 3) { (try? app.get("/v1/lists/people/events").status) == 200 }, "the freed slot is taken again")
    }

    func testConnectionsOverThePerClientLimitAreRefusedAndCounted() throws {
        let app = try TestApp()
        var held: [HTTPTestClient] = []
        for _ in 0..<64 {
            let client = try app.client()
            XCTAssertEqual(try client.request("GET", "/healthz").status, 200)
            held.append(client)
        }
        let extra = try app.client()
        try? extra.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(extra.isClosedByPeer(), "the 65th connection from one address is closed")
        let other = try HTTPTestClient(port: app.port, from: "127.0.0.2")
        let text = try other.request("GET", "/metrics").text
        XCTAssertTrue(text.contains("sectional_connections_refused_total{limit=\"perClientConnectionLimit\"} 1\n"), text)
        XCTAssertTrue(text.contains("sectional_connections_refused_total{limit=\"connectionLimit\"} 0\n"), text)
        XCTAssertTrue(text.contains("sectional_connections_closed_too_slow_total 0\n"), text)
        XCTAssertTrue(text.contains("sectional_connections 65\n"), "64 held and this one: \(text)")
    }

    /// An event stream asked for while the server stops — on a connection kept alive from
    /// before, while a write's body is still coming — is refused `503 draining` with
    /// `Retry-After`, and the stop completes once the write is done. Before, the stream was
    /// accepted and nothing ended it: at the end of the grace period libmicrohttpd aborted the
    /// process (exit 134, "MHD_stop_daemon() called while we have suspended connections").
    func testAnEventStreamAskedForWhileStoppingIsRefusedAndTheStopCompletes() throws {
        let app = try TestApp()
        let kept = try app.client()
        XCTAssertEqual(try kept.request("GET", "/healthz").status, 200)
        let body = Array(#"{"name":"Ada","team":"Design"}"#.utf8)
        let write = try app.client()
        try write.send("PUT /v1/collections/people/records/p1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       + "Expect: 100-continue\r\nContent-Length: \(body.count)\r\n\r\n")
        // `100 Continue`: the server has the write in flight, so the stop waits for it.
        XCTAssertTrue(try write.readUntil("\r\n\r\n").hasPrefix("HTTP/1.1 100 "))
        try write.send(Array(body[..<5]))
        let stopped = DispatchSemaphore(value: 0)
        let server = app.server
        DispatchQueue.global().async {
            server.stop(gracePeriod: 10)
            stopped.signal()
        }
        XCTAssertTrue(eventually { (try? app.client()) == nil }, "the stop has begun")

        let refused = try kept.request("GET", "/v1/lists/people/events")
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.slug, "draining")
        XCTAssertEqual(refused.header("Retry-After"), "1")
        try write.send(Array(body[5...]))
        XCTAssertEqual(try write.readAnswer().status, 201, "the write under way is done")
        XCTAssertEqual(stopped.wait(timeout: .now() + 20), .success, "the stop completes")
    }

    /// The value of an unlabelled metric, read from `/metrics` on a new connection.
    private func metric(_ name: String, _ app: TestApp) -> Double? {
        guard let text = try? HTTPTestClient(port: app.port, from: "127.0.0.3").request("GET", "/metrics").text else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.dropFirst(name.count + 1)) }
    }
}
