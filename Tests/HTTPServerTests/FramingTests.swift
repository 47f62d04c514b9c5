import Foundation
import HTTPServer
import TestSupport
import XCTest

/// Request framing over raw sockets: a head whose body length is ambiguous is answered at once
/// and the connection closed, so no byte of a body is ever served as a request.
final class FramingTests: XCTestCase {
    private var server: Server!
    /// Requests that reached `/smuggled`: the bytes hidden in a body must never get there.
    private let smuggled = Counter()

    override func setUpWithError() throws {
        var router = Router()
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        router.post("/echo") { request in Response(status: .ok, body: request.body) }
        router.get("/smuggled") { [smuggled] _ in
            smuggled.increment()
            return .json("{}")
        }
        let frozen = router
        server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2)) { frozen.respond(to: &$0) }
        try server.start()
    }

    override func tearDown() {
        server.stop(gracePeriod: 1)
    }

    private let hidden = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Sends `text` on a new connection; returns everything answered until the server closed it.
    /// Fails (throws) when the server keeps the connection open for 5 s.
    private func answers(_ text: String) throws -> String {
        let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        try client.send(Array(text.utf8))
        return try client.readUntilClosed()
    }

    /// The one status code in `text`, failing when there is not exactly one status line.
    private func onlyStatus(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Int? {
        let statusLines = text.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.") }
        XCTAssertEqual(statusLines.count, 1, "exactly one answer: \(text)", file: file, line: line)
        return statusLines.first.flatMap { Int($0.split(separator: " ")[1]) }
    }

    func testTwoDifferentContentLengthsAre400AndTheBodyIsNeverARequest() throws {
        let text = try answers("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: \(5 + hidden.utf8.count)\r\n\r\nhello" + hidden)
        XCTAssertEqual(onlyStatus(text), 400)
        XCTAssertTrue(text.contains(#""type":"/problems/invalid-request""#), text)
        XCTAssertTrue(text.lowercased().contains("connection: close"), text)
        XCTAssertEqual(smuggled.value, 0)
    }

    func testSpaceBeforeTheColonIs400AndTheBodyIsNeverARequest() throws {
        let text = try answers("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length : \(hidden.utf8.count)\r\n\r\n" + hidden)
        XCTAssertEqual(onlyStatus(text), 400)
        XCTAssertEqual(smuggled.value, 0)
    }

    func testContentLengthWithChunkedIs400AndTheRestIsNeverARequest() throws {
        let text = try answers("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden)
        XCTAssertEqual(onlyStatus(text), 400)
        XCTAssertEqual(smuggled.value, 0)
    }

    /// HTTP/1.0 has no transfer codings (RFC 9112 §6.1): such a request is refused and closed,
    /// though it asks to be kept alive, and what follows its head is never a request.
    func testAnHTTP10RequestWithTransferEncodingIs400AndTheRestIsNeverARequest() throws {
        let text = try answers("POST /echo HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden)
        XCTAssertEqual(onlyStatus(text), 400)
        XCTAssertTrue(text.lowercased().contains("connection: close"), text)
        XCTAssertEqual(smuggled.value, 0)
    }

    /// A detail quotes at most 64 characters of the request (a long header name came back whole).
    func testAHeaderNameThatIsNoTokenIsQuotedShort() throws {
        let name = String(repeating: "a", count: 300) + "@"
        let text = try answers("GET /healthz HTTP/1.1\r\nHost: x\r\n\(name): v\r\n\r\n")
        XCTAssertEqual(onlyStatus(text), 400)
        XCTAssertTrue(text.contains(String(repeating: "a", count: 64) + "…"), text)
        XCTAssertFalse(text.contains(String(repeating: "a", count: 65)), text)
    }

    /// libmicrohttpd keeps the whitespace after a value and does not read `chunked ` as chunked:
    /// it would read the rest of the connection as the body and never answer.
    func testChunkedFollowedByWhitespaceIs400AndTheRestIsNeverARequest() throws {
        for coding in ["chunked ", "chunked\t", "gzip, chunked "] {
            let text = try answers("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \(coding)\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + hidden)
            XCTAssertEqual(onlyStatus(text), 400, coding)
            XCTAssertTrue(text.contains(#""type":"/problems/invalid-request""#), text)
        }
        XCTAssertEqual(smuggled.value, 0)
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/healthz").status, 200, "the server keeps serving")
    }

    func testUnknownTransferCodingsAreAnsweredAtOnce() throws {
        for (coding, status) in [("xchunked", 400), ("identity", 400), ("chunked, chunked", 400), ("gzip, chunked", 501)] {
            let text = try answers("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \(coding)\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + hidden)
            XCTAssertEqual(onlyStatus(text), status, coding)
        }
        XCTAssertEqual(smuggled.value, 0)
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/healthz").status, 200, "the server keeps serving")
    }

    func testHTTP11NeedsExactlyOneHost() throws {
        XCTAssertEqual(onlyStatus(try answers("GET /healthz HTTP/1.1\r\n\r\n")), 400)
        XCTAssertEqual(onlyStatus(try answers("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")), 400)
        XCTAssertEqual(onlyStatus(try answers("GET /healthz HTTP/1.1\r\nHost: a, b\r\n\r\n")), 400, "two hosts in one field")
        XCTAssertEqual(onlyStatus(try answers("GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n")), 400)
        let spaced = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        try spaced.send("GET /healthz HTTP/1.1\r\nHost:  example.com:80 \r\n\r\n")
        XCTAssertEqual(try spaced.readAnswer().status, 200, "spaces around the value are no part of it")
        let old = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        try old.send("GET /healthz HTTP/1.0\r\n\r\n")
        XCTAssertEqual(try old.readAnswer().status, 200, "HTTP/1.0 needs no Host")
    }

    func testATargetThatIsNoPathIs400AndAnAbsoluteTargetIsServedByItsPath() throws {
        XCTAssertEqual(onlyStatus(try answers("GET healthz HTTP/1.1\r\nHost: x\r\n\r\n")), 400)
        XCTAssertEqual(onlyStatus(try answers("GET /heal thz HTTP/1.1\r\nHost: x\r\n\r\n")), 400)
        let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        let absolute = try client.request("GET", "http://example.com/healthz")
        XCTAssertEqual(absolute.status, 200)
        XCTAssertEqual(absolute.text, #"{"status":"ok"}"#)
        XCTAssertEqual(try client.request("GET", "HTTPS://example.com:8443/healthz?x=1").status, 200)
    }

    func testAHeaderValueWithANulByteAFoldedLineOrANamelessLineIs400() throws {
        XCTAssertEqual(onlyStatus(try answers("GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\0junk\r\nX-A: b\r\n\r\n")), 400)
        XCTAssertEqual(onlyStatus(try answers("GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\0\r\n\r\n")), 400)
        XCTAssertEqual(onlyStatus(try answers("GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\nX-B: c\r\n\r\n")), 400)
        // A line without a field name, which libmicrohttpd would drop: named in the answer.
        let nameless = try answers("GET /healthz HTTP/1.1\r\nHost: x\r\n: value\r\nX-B: c\r\n\r\n")
        XCTAssertEqual(onlyStatus(nameless), 400)
        XCTAssertTrue(nameless.contains("without a field name"), nameless)
        // Bare LF line ends, empty values and a large field are fine.
        let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        try client.send("GET /healthz HTTP/1.1\nHost: x\nX-Empty:\nX-Big: \(String(repeating: "b", count: 10_000))\n\n")
        XCTAssertEqual(try client.readAnswer().status, 200)
    }
}
