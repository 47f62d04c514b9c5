import Foundation
import HTTPServer
import TestSupport
import XCTest

/// How answers are built and sent: `500` when libmicrohttpd cannot send one, early answers
/// instead of `100 Continue`, and libmicrohttpd's messages handed to the caller.
final class AnswerTests: XCTestCase {
    private var server: Server!
    private let completed = Recorded<(path: String, status: Int)>()
    private let messages = Recorded<String>()

    override func setUpWithError() throws {
        var router = Router()
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        router.get("/header/{kind}") { request in
            let value = switch request.parameter("kind") {
            case "newline": "a\r\nSet-Cookie: b"
            case "nul": "a\0b"
            case "large": String(repeating: "l", count: 13_000)
            default: String(repeating: "h", count: 40_000)
            }
            var response = Response.json(#"{"ok":true}"#)
            response.headers.add("X-Value", value)
            return response
        }
        router.put("/guarded") { request in .json("{\"bytes\":\(request.body.count)}") }
        let frozen = router
        server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2),
                        onCompleted: { [completed] done in completed.append((String(done.path), done.status.code)) },
                        onLibraryMessage: { [messages] message in messages.append(message) },
                        beforeContinue: { request in
                            request.headers["Authorization"] == "yes" ? nil : HTTPError(.unauthorized, "unauthorized", detail: "no").response
                        },
                        responder: { frozen.respond(to: &$0) })
        try server.start()
    }

    override func tearDown() {
        server.stop(gracePeriod: 1)
    }

    func testAnAnswerLibmicrohttpdCannotSendIs500AndCountedAs500() throws {
        for kind in ["newline", "nul", "huge"] {
            let answer = try HTTPTestClient(port: server.port, timeoutSeconds: 5).request("GET", "/header/\(kind)")
            XCTAssertEqual(answer.status, 500, kind)
            XCTAssertTrue(answer.text.contains(#""type":"/problems/internal""#), answer.text)
            XCTAssertNil(answer.header("X-Value"))
            XCTAssertNil(answer.header("Set-Cookie"))
            XCTAssertTrue(eventually { self.completed.items.contains { $0.path == "/header/\(kind)" && $0.status == 500 } },
                          "\(kind) was reported as \(completed.items)")
        }
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/healthz").status, 200)
    }

    /// An answer that fits the connection's memory alone but not after the request's head is the
    /// request's fault: `400 invalid-request`, and the connection closes.
    func testAnAnswerTheRequestLeftNoRoomForIs400() throws {
        let alone = try HTTPTestClient(port: server.port, timeoutSeconds: 5).request("GET", "/header/large")
        XCTAssertEqual(alone.status, 200, "13,000 bytes of fields fit after a small head")
        let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        try client.send("GET /header/large HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "p", count: 3_000))\r\n\r\n")
        let text = try client.readUntilClosed()
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 400 "), text)
        XCTAssertTrue(text.contains(#""type":"/problems/invalid-request""#), text)
        XCTAssertTrue(text.contains("fewer query parameters or header fields"), text)
        XCTAssertFalse(text.contains("lllll"), "none of the answer's own fields")
    }

    /// A head of up to 15,800 bytes (of libmicrohttpd's 16 KiB a connection) gets a whole answer:
    /// the page, or when even a small answer is estimated not to fit after the head, the 400 (it
    /// got an empty reply from 15,000 bytes on). Past about 15,900 libmicrohttpd has no room for
    /// any answer, and past about 16,100 it answers 431 itself.
    func testAHeadThatFillsTheConnectionStillGetsAnAnswer() throws {
        var statuses: [Int: String] = [:]
        for padding in stride(from: 14_000, through: 15_800, by: 200) {
            let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
            try client.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Pad: \(String(repeating: "p", count: padding))\r\n\r\n")
            let text = try client.readUntilClosed()
            XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 ") || text.hasPrefix("HTTP/1.1 400 "), "\(padding): \(text.prefix(200))")
            XCTAssertTrue(text.hasSuffix("}"), "\(padding): a whole answer: \(text.suffix(100))")
            statuses[padding] = String(text.prefix(12))
        }
        XCTAssertEqual(statuses[15_800], "HTTP/1.1 400", "\(statuses.sorted { $0.key < $1.key })")
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/healthz").status, 200)
    }

    func testAnEarlyAnswerReplaces100Continue() throws {
        let refused = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        try refused.send("PUT /guarded HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        let text = try refused.readUntilClosed()
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 401 "), "no 100 Continue before the refusal: \(text)")
        XCTAssertFalse(text.contains("100 Continue"), text)

        let allowed = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        try allowed.send("PUT /guarded HTTP/1.1\r\nHost: x\r\nAuthorization: yes\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        XCTAssertTrue(try allowed.readUntil("\r\n\r\n").hasPrefix("HTTP/1.1 100 Continue"))
        try allowed.send("body")
        let answer = try allowed.readAnswer()
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text, #"{"bytes":4}"#)
    }

    /// A start with a valid configuration has nothing to say (libmicrohttpd warned about the
    /// order of its own options on every start, and the service logged that as a warning).
    func testAStartSaysNothing() {
        XCTAssertEqual(messages.items, [])
    }

    func testLibmicrohttpdMessagesGoToTheCallerNotStderr() throws {
        let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        try client.send("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n")
        _ = try client.readUntilClosed()
        XCTAssertTrue(eventually { self.messages.items.contains { $0.contains("Content-Length") } },
                      "\(messages.items)")
        XCTAssertTrue(eventually { self.completed.items.contains { $0.path == "/healthz" && $0.status == 400 } },
                      "libmicrohttpd's own 400 is reported as 400: \(completed.items)")
    }
}

/// Values appended from server threads, read by the test.
private final class Recorded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []
    func append(_ value: Value) { lock.withLock { values.append(value) } }
    var items: [Value] { lock.withLock { values } }
}
