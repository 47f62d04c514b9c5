import Dispatch
import Foundation
import HTTPServer
import JSONOutput
import Synchronization
import TestSupport
import XCTest

final class ServerTests: XCTestCase {
    private var server: Server!
    private let releaseSlow = DispatchSemaphore(value: 0)
    private let slowStarted = Counter()

    override func setUpWithError() throws {
        var router = Router()
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        router.post("/echo") { request in
            Response(status: .ok, headers: HTTPHeaders([("Content-Type", "application/octet-stream")]), body: request.body)
        }
        router.get("/items/{name}") { request in
            let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            return .json("{\"name\":\(JSONWriter.quoted(request.parameter("name"))),\"query\":\(JSONWriter.quoted(query)),\"path\":\(JSONWriter.quoted(request.path))}")
        }
        router.delete("/items/{name}") { _ in .empty() }
        router.get("/slow") { [releaseSlow, slowStarted] _ in
            slowStarted.increment()
            releaseSlow.wait()
            return .json(#"{"slow":true}"#)
        }
        router.get("/fail") { _ in throw HTTPError(.conflict, "conflict-here", detail: "a \"quoted\" detail") }
        let frozen = router
        server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 4, maxBodyBytes: 1000)) {
            frozen.respond(to: &$0)
        }
        try server.start()
        XCTAssertGreaterThan(server.port, 0)
    }

    override func tearDown() {
        server.stop(gracePeriod: 1)
    }

    func testKeepAliveServesSeveralRequestsOnOneConnection() throws {
        let client = try HTTPTestClient(port: server.port)
        for _ in 0..<5 {
            let answer = try client.request("GET", "/healthz")
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.text, #"{"status":"ok"}"#)
            XCTAssertNil(answer.header("Connection"), "server asked to close the connection")
        }
    }

    func testBodySentInManyChunksIsEchoed() throws {
        let client = try HTTPTestClient(port: server.port)
        try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        var expected: [UInt8] = []
        for i in 0..<40 {
            let piece = Array("part-\(i);".utf8)
            expected += piece
            try client.send(String(piece.count, radix: 16) + "\r\n" + String(decoding: piece, as: UTF8.self) + "\r\n")
        }
        try client.send("0\r\n\r\n")
        let answer = try client.readAnswer()
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.body, expected)
    }

    func testOversizedBodyIs413AndServerKeepsServing() throws {
        let declared = try HTTPTestClient(port: server.port)
        try declared.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n")
        let first = try declared.readAnswer()
        XCTAssertEqual(first.status, 413)
        XCTAssertEqual(first.header("Content-Type"), "application/problem+json")
        XCTAssertTrue(first.text.contains(#""type":"/problems/body-too-large""#), first.text)

        // Lengths libmicrohttpd reads (up to 2^64 − 1) but `Int` does not were never answered.
        for length in ["9223372036854775807", "9223372036854775808", "18446744073709551615"] {
            let huge = try HTTPTestClient(port: server.port)
            try huge.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(length)\r\n\r\n" + String(repeating: "x", count: 4096))
            XCTAssertEqual(try huge.readAnswer().status, 413, length)
        }

        let chunked = try HTTPTestClient(port: server.port)
        try chunked.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in 0..<3 { try chunked.send("190\r\n" + String(repeating: "a", count: 400) + "\r\n") }
        try chunked.send("0\r\n\r\n")
        let second = try chunked.readAnswer()
        XCTAssertEqual(second.status, 413)

        let after = try HTTPTestClient(port: server.port).request("GET", "/healthz")
        XCTAssertEqual(after.status, 200)
    }

    func testUnknownPathIs404AndWrongMethodIs405WithAllow() throws {
        let client = try HTTPTestClient(port: server.port)
        let missing = try client.request("GET", "/nothing/here")
        XCTAssertEqual(missing.status, 404)
        XCTAssertTrue(missing.text.contains(#""type":"/problems/not-found""#))
        let wrong = try client.request("PUT", "/items/a", body: [])
        XCTAssertEqual(wrong.status, 405)
        XCTAssertEqual(wrong.header("Allow"), "DELETE, GET, HEAD, OPTIONS")
        XCTAssertTrue(wrong.text.contains(#""type":"/problems/method-not-allowed""#))
        let options = try client.request("OPTIONS", "/items/a")
        XCTAssertEqual(options.status, 204, "the method a 405 names is answered")
        XCTAssertEqual(options.header("Allow"), "DELETE, GET, HEAD, OPTIONS")
        // `OPTIONS *` asks of the server as a whole: every method some route takes.
        let server = try client.request("OPTIONS", "*")
        XCTAssertEqual(server.status, 204, server.text)
        XCTAssertEqual(server.header("Allow"), "DELETE, GET, HEAD, OPTIONS, POST")
        XCTAssertEqual(try client.request("GET", "/items/a").status, 200, "the connection goes on")
        let thrown = try client.request("GET", "/fail")
        XCTAssertEqual(thrown.status, 409)
        let problem = try JSONSerialization.jsonObject(with: Data(thrown.body)) as? [String: Any]
        XCTAssertEqual(problem?["detail"] as? String, "a \"quoted\" detail")
        XCTAssertEqual(problem?["status"] as? Int, 409)
    }

    func testPercentEncodedPathsAndQueries() throws {
        let answer = try HTTPTestClient(port: server.port).request("GET", "/items/a%2Fb%20c?x=1%262&y=two+words&flag")
        XCTAssertEqual(answer.status, 200)
        let json = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: String]
        XCTAssertEqual(json?["name"], "a/b c")
        XCTAssertEqual(json?["query"], "x=1&2&y=two words&flag=")
        XCTAssertEqual(json?["path"], "/items/a/b c")
    }

    func testHeadAnswersLikeGetWithoutBody() throws {
        let client = try HTTPTestClient(port: server.port)
        let head = try client.request("HEAD", "/healthz")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), "15")
        XCTAssertEqual(head.header("Content-Type"), "application/json; charset=utf-8")
        XCTAssertTrue(head.body.isEmpty)
        // The connection is still usable: no stray body bytes were sent.
        XCTAssertEqual(try client.request("GET", "/healthz").text, #"{"status":"ok"}"#)
    }

    func testTwoHundredConcurrentRequestsAreAllAnsweredCorrectly() throws {
        let correct = Counter()
        let port = server.port
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            guard let client = try? HTTPTestClient(port: port) else { return }
            for i in 0..<25 {
                let name = "w\(worker)-\(i)"
                if let answer = try? client.request("GET", "/items/\(name)"),
                   answer.status == 200, answer.text.contains("\"name\":\"\(name)\"") {
                    correct.increment()
                }
            }
        }
        XCTAssertEqual(correct.value, 200)
    }

    func testGracefulStopLetsInFlightRequestFinish() throws {
        let keptAlive = try HTTPTestClient(port: server.port)
        XCTAssertNil(try keptAlive.request("GET", "/healthz").header("Connection"))
        let client = try HTTPTestClient(port: server.port)
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(eventually { slowStarted.value == 1 })
        let stopped = DispatchSemaphore(value: 0)
        let port = server.port
        DispatchQueue.global().async { [server] in
            server!.stop(gracePeriod: 10)
            stopped.signal()
        }
        // The listener closes at once: new connections are refused while the slow one is served.
        XCTAssertTrue(eventually { (try? HTTPTestClient(port: port)) == nil })
        // A kept-alive connection is still answered, and told to close: its next request would be
        // cut when the grace period ends.
        let draining = try keptAlive.request("GET", "/healthz")
        XCTAssertEqual(draining.status, 200)
        XCTAssertEqual(draining.header("Connection")?.lowercased(), "close")
        XCTAssertTrue(keptAlive.isClosedByPeer())
        releaseSlow.signal()
        let answer = try client.readAnswer()
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text, #"{"slow":true}"#)
        XCTAssertEqual(stopped.wait(timeout: .now() + 10), .success)
    }

    func testGracefulStopDoesNotWaitForARequestWhoseHeadNeverCame() throws {
        // One answered request, then the start of another whose head never ends, on one connection.
        let client = try HTTPTestClient(port: server.port)
        try client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n")
        XCTAssertEqual(try client.readAnswer().status, 200)
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [server] in
            server!.stop(gracePeriod: 20)
            stopped.signal()
        }
        let result = stopped.wait(timeout: .now() + 10)
        XCTAssertEqual(result, .success, "the stop waited for a head that never came")
        if result != .success { _ = stopped.wait(timeout: .now() + 15) }
        XCTAssertTrue(client.isClosedByPeer())
    }

    /// Stopping while clients keep sending on keep-alive connections and opening new ones: each
    /// stop returns, every answer that arrives is whole, and connections made after the stop are
    /// refused. libmicrohttpd's own stop-accepting (`MHD_quiesce_daemon`) raced its awake workers
    /// and aborted the process: once in 3,000 such stops (with 1,000 rounds here, 1 run in 3).
    func testStoppingUnderSteadyTrafficNeverAbortsAndRefusesNewConnections() throws {
        for _ in 0..<200 {
            var router = Router()
            router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
            let frozen = router
            let busy = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 4)) { frozen.respond(to: &$0) }
            try busy.start()
            let port = busy.port
            let stopping = Atomic<Bool>(false)
            let answered = Counter(), broken = Counter()
            let clients = DispatchGroup()
            for _ in 0..<4 {
                DispatchQueue.global().async(group: clients) {
                    while !stopping.load(ordering: .relaxed) {
                        guard let client = try? HTTPTestClient(port: port, timeoutSeconds: 2) else { continue }
                        for _ in 0..<5 {
                            guard let answer = try? client.request("GET", "/healthz") else { break }
                            if answer.status == 200 && answer.text == #"{"status":"ok"}"# { answered.increment() } else { broken.increment() }
                        }
                    }
                }
            }
            XCTAssertTrue(eventually { answered.value >= 10 })
            busy.stop(gracePeriod: 1)
            XCTAssertNil(try? HTTPTestClient(port: port), "a connection after the stop was accepted")
            stopping.store(true, ordering: .relaxed)
            XCTAssertEqual(clients.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(broken.value, 0)
        }
    }
}
