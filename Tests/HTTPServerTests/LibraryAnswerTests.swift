import Foundation
import HTTPServer
import Locking
import TestSupport
import XCTest

/// What is reported of answers libmicrohttpd makes itself after the request line (a `431`, a
/// `Content-Length` that is no number): their status, never a method or a body size the server
/// was not told; how many bytes a stream sent; and which of libmicrohttpd's messages are routine.
final class LibraryAnswerTests: XCTestCase {
    private struct Done: Sendable {
        let method: String?
        let target: String
        let status: Int
        let bytes: Int?
        let rejectedRequestLine: Bool
    }

    private var server: Server!
    /// What the server threads tell the test.
    private final class Seen: Sendable {
        let reports = Locked<[Done]>([])
        let stream = Locked<StreamBody?>(nil)
    }

    private let seen = Seen()
    private var reported: [Done] { seen.reports.withLock { $0 } }

    override func setUpWithError() throws {
        var router = Router()
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        router.put("/records/{id}") { _ in .json("{}") }
        router.delete("/records/{id}") { _ in .json("{}") }
        router.get("/stream") { [seen] _ in
            let body = StreamBody()
            body.send(Array("data: 12345\n\n".utf8))
            seen.stream.withLock { $0 = body }
            return Response(status: .ok, headers: HTTPHeaders([("Content-Type", "text/event-stream")]), stream: body)
        }
        let frozen = router
        server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2),
                        onCompleted: { [seen] done in
                            let done = Done(method: done.method?.rawValue, target: done.target, status: done.status.code,
                                            bytes: done.bytes, rejectedRequestLine: done.rejectedRequestLine)
                            seen.reports.withLock { $0.append(done) }
                        },
                        responder: { frozen.respond(to: &$0) })
        try server.start()
    }

    override func tearDown() {
        server.stop(gracePeriod: 1)
    }

    /// Sends `text` on a new connection, reads until the server closes it, and waits until the
    /// server no longer counts it open (its request was reported before).
    private func exchange(_ text: String) throws -> String {
        let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        try client.send(text)
        let answer = try client.readUntilClosed()
        XCTAssertTrue(eventually { self.server.connections.open == 0 }, "the connection closed")
        return answer
    }

    func testAnswersLibmicrohttpdMakesBeforeTheHandlerHaveNoMethodOrBytes() throws {
        let large = try exchange("PUT /records/e2 HTTP/1.1\r\nHost: x\r\nX-A: \(String(repeating: "a", count: 20_000))\r\n\r\n")
        XCTAssertTrue(large.hasPrefix("HTTP/1.1 431 "), large)
        let negative = try exchange("DELETE /records/e3 HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n")
        XCTAssertTrue(negative.hasPrefix("HTTP/1.1 400 "), negative)
        XCTAssertEqual(reported.map(\.status), [431, 400], "each once")
        for done in reported {
            XCTAssertNil(done.method, "\(done.status): libmicrohttpd did not tell the method, and it is not reported as GET")
            XCTAssertNil(done.bytes, "\(done.status): the size of libmicrohttpd's own page is not known")
        }
        XCTAssertEqual(reported.map(\.target), ["/records/e2", "/records/e3"])
        XCTAssertEqual(reported.map(\.rejectedRequestLine), [false, false])
    }

    /// libmicrohttpd answers a target too long (`414`) and an HTTP version it does not serve
    /// (`505`) before it calls any callback of the server: each is reported once, from its message,
    /// with its status and nothing else.
    func testAnswersToTheRequestLineAreReportedWithTheirStatusOnly() throws {
        let long = try exchange("GET /healthz?\(String(repeating: "a", count: 20_000)) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(long.hasPrefix("HTTP/1.1 414 "), long)
        let future = try exchange("GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n")
        XCTAssertTrue(future.hasPrefix("HTTP/1.1 505 "), future)
        let old = try exchange("GET /healthz HTTP/0.9\r\nHost: x\r\n\r\n")
        XCTAssertTrue(old.hasPrefix("HTTP/1.1 505 "), old)
        XCTAssertEqual(reported.map(\.status), [414, 505, 505], "each once")
        for done in reported {
            XCTAssertTrue(done.rejectedRequestLine, "\(done.status)")
            XCTAssertNil(done.method, "\(done.status)")
            XCTAssertEqual(done.target, "", "\(done.status): libmicrohttpd tells no target")
            XCTAssertNil(done.bytes, "\(done.status)")
        }
    }

    func testAStreamReportsTheBytesItSent() throws {
        let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readUntil("data: 12345")
        let body = try XCTUnwrap(seen.stream.withLock { $0 })
        XCTAssertTrue(body.send(Array("data: 678\n\n".utf8)))
        _ = try client.readUntil("data: 678")
        body.close()
        XCTAssertTrue(eventually { self.reported.contains { $0.target == "/stream" } })
        XCTAssertEqual(reported.first { $0.target == "/stream" }?.bytes, 13 + 11, "the events, not 0")
    }

    func testAClientGoneWhileItsAnswerIsSentIsNoWarning() {
        XCTAssertTrue(LibraryMessages.saysClientWentAway(
            "Failed to send the footers for the request for `/v1/lists/contacts/events'. Error: The socket is no longer available for sending"))
        XCTAssertTrue(LibraryMessages.saysClientWentAway(
            "Failed to send the footers for the request for `/x'. Error: The connection was forcibly closed by remote peer"))
        XCTAssertFalse(LibraryMessages.saysClientWentAway(
            "Error processing request (HTTP response code is 431 ('<html>…</html>')). Closing connection."))
        XCTAssertFalse(LibraryMessages.saysClientWentAway("Failed to send the response body for the request for `/x'. Error: Bad FD value"))
    }
}
