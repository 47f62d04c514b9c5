import Dispatch
import Foundation
import HTTPServer
import TestSupport
import XCTest

final class LimitTests: XCTestCase {
    private func makeServer(_ configuration: ServerConfiguration) throws -> Server {
        var router = Router()
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        router.get("/count") { request in .json("{\"parameters\":\(request.query.count),\"last\":\"\(request.query.last?.value ?? "")\"}") }
        let frozen = router
        let server = Server(configuration: configuration) { frozen.respond(to: &$0) }
        try server.start()
        return server
    }

    /// True when the server closed `client` without answering `GET /healthz`.
    private func isRefused(_ client: HTTPTestClient) -> Bool {
        // The send itself may already fail when the server has closed the socket.
        try? client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        return client.isClosedByPeer()
    }

    /// A connection is served within `seconds` (each try on a new connection).
    private func served(_ server: Server, from source: String? = nil, within seconds: Double = 5) -> Bool {
        eventually(within: seconds) {
            (try? HTTPTestClient(port: server.port, from: source).request("GET", "/healthz").status) == 200
        }
    }

    func testIdleClientsCannotHoldTheServerAndAreClosedAfterTheTimeout() throws {
        // 200 idle connections (400 descriptors in this process, well under a 1,024 soft limit).
        let server = try makeServer(ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2, connectionLimit: 1000,
                                                        perClientConnectionLimit: 0, connectionTimeoutSeconds: 2))
        defer { server.stop(gracePeriod: 1) }
        var idle: [HTTPTestClient] = []
        for _ in 0..<200 {
            let client = try HTTPTestClient(port: server.port)
            try client.send("GET /hea")
            idle.append(client)
        }
        // They tie up no thread: others are served meanwhile.
        for _ in 0..<20 {
            XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/healthz").status, 200)
        }
        // After the 2 s idle timeout every one of them has been closed by the server.
        XCTAssertTrue(eventually(within: 20) { idle.allSatisfy { $0.isClosedByPeer() } })
        XCTAssertTrue(eventually { server.connections.open == 0 }, "open: \(server.connections.open)")
    }

    func testOneClientAddressCannotTakeMoreThanItsShareOfConnections() throws {
        let server = try makeServer(ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2, perClientConnectionLimit: 4))
        defer { server.stop(gracePeriod: 1) }
        var held: [HTTPTestClient] = []
        for _ in 0..<4 {
            let client = try HTTPTestClient(port: server.port)
            XCTAssertEqual(try client.request("GET", "/healthz").status, 200)
            held.append(client)
        }
        XCTAssertTrue(isRefused(try HTTPTestClient(port: server.port)), "the fifth connection from one address is closed")
        XCTAssertEqual(server.connections.refusedPerClient, 1)
        XCTAssertEqual(try HTTPTestClient(port: server.port, from: "127.0.0.2").request("GET", "/healthz").status, 200,
                       "another client address is still served")
        XCTAssertEqual(try held[3].request("GET", "/healthz").status, 200, "the others keep working")
        held.removeFirst()
        XCTAssertTrue(served(server), "a freed slot is taken again")
    }

    func testTheDefaultPerClientLimitLeavesConnectionsForOtherClients() throws {
        let defaults = ServerConfiguration()
        XCTAssertEqual(defaults.perClientConnectionLimit, 64)
        let server = try makeServer(ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2))
        defer { server.stop(gracePeriod: 1) }
        var held: [HTTPTestClient] = []
        for _ in 0..<defaults.perClientConnectionLimit {
            let client = try HTTPTestClient(port: server.port)
            XCTAssertEqual(try client.request("GET", "/healthz").status, 200)
            held.append(client)
        }
        XCTAssertTrue(isRefused(try HTTPTestClient(port: server.port)))
        XCTAssertEqual(try HTTPTestClient(port: server.port, from: "127.0.0.2").request("GET", "/healthz").status, 200)
        XCTAssertEqual(server.connections.refusedPerClient, 1)
    }

    func testConnectionsPastTheLimitAreClosedAndServingResumesWhenOneFrees() throws {
        let server = try makeServer(ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2, connectionLimit: 4,
                                                        perClientConnectionLimit: 0))
        defer { server.stop(gracePeriod: 1) }
        var held: [HTTPTestClient] = []
        for _ in 0..<4 {
            let client = try HTTPTestClient(port: server.port)
            XCTAssertEqual(try client.request("GET", "/healthz").status, 200)
            held.append(client)
        }
        XCTAssertEqual(server.connections.open, 4)
        // Closed at once, not left waiting in the listen backlog.
        XCTAssertTrue(isRefused(try HTTPTestClient(port: server.port, from: "127.0.0.2")), "the fifth connection is closed")
        XCTAssertGreaterThanOrEqual(server.connections.refusedAtLimit, 1)
        XCTAssertEqual(try held[0].request("GET", "/healthz").status, 200, "held connections keep working")
        held.removeLast()
        XCTAssertTrue(served(server, from: "127.0.0.2"), "once one closes, another is served")
        XCTAssertLessThanOrEqual(server.connections.open, 4)
    }

    /// libmicrohttpd is left no query to parse (the server reads its own copy): past about 220
    /// parameters it ran out of the connection's memory parsing them and sent nothing, so the
    /// client waited for the idle timeout. Every parameter still reaches the route, and one
    /// connection serves such requests one after another.
    func testManyQueryParametersAreAnswered() throws {
        let server = try makeServer(ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2, connectionTimeoutSeconds: 30))
        defer { server.stop(gracePeriod: 1) }
        let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        for count in [1, 300, 1_000] {
            let query = (1...count).map { "a\($0)=\($0)" }.joined(separator: "&")
            let answer = try client.request("GET", "/count?\(query)")
            XCTAssertEqual(answer.status, 200, "\(count) parameters")
            XCTAssertEqual(answer.text, "{\"parameters\":\(count),\"last\":\"\(count)\"}")
        }
    }

    func testOversizedHeadersAreRefusedAndTheServerKeepsServing() throws {
        let server = try makeServer(ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2, connectionMemoryBytes: 8 << 10))
        defer { server.stop(gracePeriod: 1) }
        let huge = try HTTPTestClient(port: server.port).request("GET", "/healthz", headers: [("X-Big", String(repeating: "a", count: 20_000))])
        XCTAssertEqual(huge.status, 431, "README: headers over the per-connection memory get 431")
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/healthz").status, 200)
    }
}
