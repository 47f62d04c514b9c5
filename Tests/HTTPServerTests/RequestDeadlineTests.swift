import Foundation
import HTTPServer
import TestSupport
import XCTest

/// A request that arrives too slowly is closed: its head within 2× the connection timeout of the
/// connection opening (or of its previous answer), the whole request within 10×. With a 1 s
/// timeout: 2 s and 10 s. Each trickle sends a byte or a line every 0.3 s, well inside the 1 s
/// inactivity timeout, so only the deadline can close it.
final class RequestDeadlineTests: XCTestCase {
    private func makeServer() throws -> Server {
        var router = Router()
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        router.post("/echo") { .json(#"{"bytes":\#($0.body.count)}"#) }
        let frozen = router
        let server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2,
                                                               connectionTimeoutSeconds: 1)) { frozen.respond(to: &$0) }
        try server.start()
        return server
    }

    /// Sends `piece()` every 0.3 s until the server closes the connection or `seconds` pass;
    /// returns the seconds it stayed open, or nil when it never closed.
    private func trickle(_ client: HTTPTestClient, for seconds: Double, _ piece: () -> String,
                         meanwhile: () -> Void = {}) -> Double? {
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            if client.isClosedByPeer(within: 300) { return Date().timeIntervalSince(start) }
            try? client.send(piece())
            meanwhile()
        }
        return nil
    }

    func testAHeadTrickledInIsClosedAtItsDeadlineWhileKeptAliveClientsAreServed() throws {
        let server = try makeServer()
        defer { server.stop(gracePeriod: 1) }
        let slow = try HTTPTestClient(port: server.port)
        try slow.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
        // A kept-alive client asking every 0.3 s outlives the 2 s: each answer starts its clock again.
        let steady = try HTTPTestClient(port: server.port)
        var steadyStatuses: [Int] = []
        let open = trickle(slow, for: 20, { "X-Slow: a\r\n" }) {
            steadyStatuses.append((try? steady.request("GET", "/healthz").status) ?? 0)
        }
        let seconds = try XCTUnwrap(open, "a head trickled in for 20 s was never closed")
        XCTAssertGreaterThanOrEqual(seconds, 1.9, "closed before its deadline")
        XCTAssertGreaterThan(steadyStatuses.count, 7)
        XCTAssertEqual(Set(steadyStatuses), [200], "the kept-alive client was served throughout")
        XCTAssertTrue(eventually { server.connections.closedTooSlow == 1 }, "counted: \(server.connections.closedTooSlow)")
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/healthz").status, 200)
    }

    func testABodyTrickledInIsClosedAtTheRequestDeadlineAndASlowOneWithinItIsAnswered() throws {
        let server = try makeServer()
        defer { server.stop(gracePeriod: 1) }
        // 1,000 bytes a byte at a time: closed at the 10 s.
        let slow = try HTTPTestClient(port: server.port)
        try slow.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
        // Meanwhile 20 bytes in about 6 s: within the 10 s, answered.
        let patient = try HTTPTestClient(port: server.port)
        try patient.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\n")
        var patientSent = 0
        var patientStatus: Int?
        let open = trickle(slow, for: 25, { "a" }) {
            guard patientSent < 20 else { return }
            try? patient.send("a")
            patientSent += 1
            if patientSent == 20 { patientStatus = try? patient.readAnswer().status }
        }
        let seconds = try XCTUnwrap(open, "a body trickled in for 25 s was never closed")
        XCTAssertGreaterThanOrEqual(seconds, 9.9, "closed before its deadline")
        XCTAssertEqual(patientStatus, 200, "the body sent within the deadline was answered")
        XCTAssertTrue(eventually { server.connections.closedTooSlow == 1 })
    }
}
