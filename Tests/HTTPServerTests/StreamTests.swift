import Dispatch
import Foundation
import HTTPServer
import Locking
import TestSupport
import XCTest

final class StreamTests: XCTestCase {
    private final class Streams: Sendable {
        let all = Locked<[StreamBody]>([])
        var count: Int { all.withLock { $0.count } }
        func last() -> StreamBody? { all.withLock { $0.last } }
    }

    private func makeServer(_ streams: Streams) throws -> Server {
        var router = Router()
        router.get("/stream") { _ in
            let stream = StreamBody(maxBufferedBytes: 1024)
            streams.all.withLock { $0.append(stream) }
            stream.send(Array(": hello\n\n".utf8))
            return Response(status: .ok, headers: HTTPHeaders([("Content-Type", "text/event-stream")]), stream: stream)
        }
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        router.post("/upload") { _ in .json(#"{"uploaded":true}"#) }
        let frozen = router
        let server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2)) { frozen.respond(to: &$0) }
        try server.start()
        return server
    }

    func testStreamedBytesArriveAsTheyAreSentWithoutBlockingOthers() throws {
        let streams = Streams()
        let server = try makeServer(streams)
        defer { server.stop(gracePeriod: 2) }
        let client = try HTTPTestClient(port: server.port)
        try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readUntil(": hello")
        XCTAssertTrue(head.contains("200 OK"))
        XCTAssertTrue(head.contains("text/event-stream"))
        // While the stream idles (suspended), other requests are served on the same threads.
        for _ in 0..<5 { XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/healthz").status, 200) }
        XCTAssertTrue(streams.last()!.send(Array("data: one\n\n".utf8)))
        XCTAssertTrue(try client.readUntil("data: one").contains("data: one"))
        XCTAssertTrue(streams.last()!.send(Array("data: two\n\n".utf8)))
        XCTAssertTrue(try client.readUntil("data: two").contains("data: two"))
        XCTAssertEqual(server.openStreams, 1)
    }

    func testAClientThatDoesNotReadIsDroppedAndNeverBlocksTheSender() throws {
        let streams = Streams()
        let server = try makeServer(streams)
        defer { server.stop(gracePeriod: 2) }
        let client = try HTTPTestClient(port: server.port)
        try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(eventually { streams.count == 1 })
        let stream = streams.last()!
        // On a thread of its own: a send that waited for the client would never end, and the
        // wait below would time out (a bound on the sends' duration was a speed goal).
        let accepted = Locked(0)
        let sent = DispatchSemaphore(value: 0)
        Thread {
            for _ in 0..<10_000 where stream.send(Array(repeating: UInt8(ascii: "x"), count: 512)) { accepted.withLock { $0 += 1 } }
            sent.signal()
        }.start()
        XCTAssertEqual(sent.wait(timeout: .now() + 60), .success, "sending must not wait for the client")
        XCTAssertLessThan(accepted.withLock { $0 }, 10_000, "the stream closes once too much waits")
        XCTAssertTrue(eventually { server.openStreams == 0 }, "the overflowing stream ends")
    }

    /// The contrast to the test above: what closes a stream is bytes waiting, not bytes sent.
    func testAReadingClientWithPacedEventsStaysOpen() throws {
        let streams = Streams()
        let server = try makeServer(streams)
        defer { server.stop(gracePeriod: 2) }
        let client = try HTTPTestClient(port: server.port)
        try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readUntil(": hello")
        let stream = try XCTUnwrap(streams.last())
        // 200 events of 100 bytes: twenty times the 1 KiB the stream lets wait, each read before the next.
        for n in 0..<200 {
            let event = "data: \(n) " + String(repeating: "x", count: 90) + "\n\n"
            guard stream.send(Array(event.utf8)) else { return XCTFail("event \(n) refused: the stream was closed") }
            let text = try client.readUntil("data: \(n) ")
            XCTAssertTrue(text.contains("data: \(n) "))
        }
        XCTAssertFalse(stream.hasEnded)
        XCTAssertEqual(server.openStreams, 1)
    }

    func testAStreamWhoseClientHangsUpEndsWithinASecondOrSo() throws {
        let streams = Streams()
        let server = try makeServer(streams)
        defer { server.stop(gracePeriod: 2) }
        var client: HTTPTestClient? = try HTTPTestClient(port: server.port)
        try client?.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client?.readUntil(": hello")
        XCTAssertEqual(server.openStreams, 1)
        XCTAssertEqual(server.connections.open, 1)
        client = nil  // closes the socket; nothing more is sent on the stream
        XCTAssertTrue(eventually(within: 3) { server.openStreams == 0 }, "the idle stream of a vanished client ends")
        XCTAssertTrue(try XCTUnwrap(streams.last()).hasEnded)
        XCTAssertTrue(eventually(within: 3) { server.connections.open == 0 }, "and its connection is closed")
    }

    func testStopEndsOpenStreams() throws {
        let streams = Streams()
        let server = try makeServer(streams)
        let client = try HTTPTestClient(port: server.port)
        try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readUntil(": hello")
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.stop(gracePeriod: 5)
            stopped.signal()
        }
        XCTAssertEqual(stopped.wait(timeout: .now() + 5), .success)
        XCTAssertTrue(streams.last()!.hasEnded)
        XCTAssertTrue(eventually { client.isClosedByPeer() })
    }

    /// A stream asked for on a kept-alive connection while a stop waits for another request (an
    /// upload whose body is still coming) ends after its first bytes, and the stop completes.
    /// Before, nothing ended it, and at the end of the grace period libmicrohttpd aborted the
    /// process: "MHD_stop_daemon() called while we have suspended connections".
    ///
    /// Now and then (about one run in twelve) libmicrohttpd does not take the kept-alive
    /// connection's next request once the stop has begun, and closes the connection unanswered
    /// at the end of the grace period: a client of a stopping server may see that, and the stop
    /// completes. The stream was then never asked for, so the scenario is tried again, until a
    /// stream is served during a stop.
    func testAStreamAskedForDuringAStopEndsAndTheStopCompletes() throws {
        for _ in 1...5 {
            let streams = Streams()
            let server = try makeServer(streams)
            let kept = try HTTPTestClient(port: server.port, timeoutSeconds: 10)
            XCTAssertEqual(try kept.request("GET", "/healthz").status, 200)
            let upload = try HTTPTestClient(port: server.port)
            try upload.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
            XCTAssertTrue(eventually { server.requestsInFlight == 1 }, "the upload is in flight")
            let stopped = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                server.stop(gracePeriod: 2)
                stopped.signal()
            }
            XCTAssertTrue(eventually { (try? HTTPTestClient(port: server.port)) == nil }, "the stop has begun")

            try kept.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            let received = try kept.readUntilClosed()
            XCTAssertEqual(stopped.wait(timeout: .now() + 20), .success, "the stop completes")
            guard let stream = streams.last() else {
                XCTAssertEqual(received, "", "closed unanswered")
                continue
            }
            XCTAssertTrue(received.hasPrefix("HTTP/1.1 200 "), received)
            XCTAssertTrue(received.contains(": hello"), received)
            XCTAssertTrue(received.hasSuffix("0\r\n\r\n"), "the stream ended: \(received)")
            XCTAssertTrue(stream.hasEnded)
            return
        }
        XCTFail("no stream was asked for during a stop in five tries")
    }
}
