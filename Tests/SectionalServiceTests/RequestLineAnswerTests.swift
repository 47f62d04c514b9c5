import Foundation
import TestSupport
import XCTest

/// libmicrohttpd's own answers to a request line (a target too long, `414`; an HTTP version it
/// does not serve, `505`) are logged and counted like every other answer, with what is known of
/// them: their status (counted, not timed).
final class RequestLineAnswerTests: FolderTestCase {
    func testATargetTooLongAndAnUnsupportedVersionAreLoggedAndCounted() throws {
        let config = folder.appendingPathComponent("sectional.json")
        try TestApp.teamsConfig.write(to: config, atomically: true, encoding: .utf8)
        let server = try ServerProcess(arguments: ["--config", config.path, "--memory"])
        XCTAssertTrue(server.waitUntilReady(), server.log)
        for (head, status) in [("GET /v1/lists/people?q=\(String(repeating: "a", count: 20_000)) HTTP/1.1", 414),
                               ("GET /v1/lists/people HTTP/2.0", 505)] {
            let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
            try client.send(head + "\r\nHost: x\r\n\r\n")
            let answer = try client.readUntilClosed()
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 \(status) "), answer)
        }
        let metrics = try HTTPTestClient(port: server.port).request("GET", "/metrics").text
        for status in [414, 505] {
            XCTAssertEqual(metricValue(metrics, #"sectional_http_requests_total{route="unmatched",method="unknown",status="\#(status)"}"#), 1,
                           metrics)
        }
        // Counted, not timed: their duration is not known (it would read 0).
        XCTAssertEqual(metricValue(metrics, #"sectional_http_request_duration_seconds_count{route="unmatched"}"#), 0, metrics)
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0, server.log)
        let lines = server.log.split(separator: "\n").filter { $0.contains(#""msg":"request""#) && $0.contains("rejected by the HTTP layer") }
        XCTAssertEqual(lines.count, 2, server.log)
        // In either order: each server thread keeps its own lines until they are written.
        var statuses: [Int] = []
        for line in lines {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            XCTAssertEqual(object["level"] as? String, "info")
            XCTAssertEqual(object["method"] as? String, "unknown")
            statuses.append(object["status"] as? Int ?? 0)
        }
        XCTAssertEqual(statuses.sorted(), [414, 505], server.log)
    }
}
