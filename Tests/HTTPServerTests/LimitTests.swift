import Dispatch
import Foundation
import HTTPServer
import TestSupport
import XCTest

final class LimitTests: XCTestCase {
    func testIdleClientsCannotHoldTheServerAndAreClosedAfterTheTimeout() throws {
        var router = Router()
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        let frozen = router
        let server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2,
                                                               connectionLimit: 1000, connectionTimeoutSeconds: 2)) {
            frozen.respond(to: &$0)
        }
        try server.start()
        defer { server.stop(gracePeriod: 1) }

        // 500 connections that send half a request line and then nothing.
        var idle: [HTTPTestClient] = []
        for _ in 0..<500 {
            let client = try HTTPTestClient(port: server.port, timeoutSeconds: 1)
            try client.send("GET /hea")
            idle.append(client)
        }
        for _ in 0..<20 {
            let started = Date()
            let answer = try HTTPTestClient(port: server.port, timeoutSeconds: 1).request("GET", "/healthz")
            XCTAssertEqual(answer.status, 200)
            XCTAssertLessThan(Date().timeIntervalSince(started), 1.0)
        }
        // After the 2 s idle timeout every one of them has been closed by the server.
        XCTAssertTrue(eventually(within: 10) { idle.allSatisfy { $0.isClosedByPeer() } })
    }

    func testOneClientAddressCannotTakeMoreThanItsShareOfConnections() throws {
        var router = Router()
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        let frozen = router
        let server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2,
                                                               perClientConnectionLimit: 4)) { frozen.respond(to: &$0) }
        try server.start()
        defer { server.stop(gracePeriod: 1) }
        let held = try (0..<4).map { _ in try HTTPTestClient(port: server.port) }
        XCTAssertEqual(try held[0].request("GET", "/healthz").status, 200)
        let extra = try HTTPTestClient(port: server.port, timeoutSeconds: 2)
        XCTAssertThrowsError(try extra.request("GET", "/healthz"), "the fifth connection from one address is closed")
        XCTAssertEqual(try held[3].request("GET", "/healthz").status, 200, "the others keep working")
    }

    func testOversizedHeadersAreRefusedAndTheServerKeepsServing() throws {
        var router = Router()
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        let frozen = router
        let server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2,
                                                               connectionMemoryBytes: 8 << 10)) { frozen.respond(to: &$0) }
        try server.start()
        defer { server.stop(gracePeriod: 1) }
        let huge = try HTTPTestClient(port: server.port).request("GET", "/healthz", headers: [("X-Big", String(repeating: "a", count: 20_000))])
        XCTAssertTrue([413, 431].contains(huge.status), "status \(huge.status)")
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/healthz").status, 200)
    }
}
