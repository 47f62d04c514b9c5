import Foundation
import TestSupport
import XCTest

/// While the server loads its data it already listens: operations answer, everything else is
/// `503 not-ready` with `Retry-After`. A seed of 20,000 records keeps a debug build loading for
/// well over a second after its listening line, which is when the test looks.
final class LoadingTests: FolderTestCase {
    func testReadsAnswer503NotReadyWithRetryAfterWhileTheDataLoads() throws {
        let records = (0..<20_000).map { "{\"id\":\"p\($0)\",\"name\":\"Person \($0)\",\"team\":\"T\($0 % 20)\"}" }
        try ("[" + records.joined(separator: ",\n") + "]").write(to: folder.appendingPathComponent("people.json"), atomically: true, encoding: .utf8)
        let config = folder.appendingPathComponent("sectional.json")
        try (#"{ "seed": { "people": "people.json" }, "server": { "corsOrigins": ["*"] }, "# + TestApp.teamsConfig.drop { $0 != "{" }.dropFirst())
            .write(to: config, atomically: true, encoding: .utf8)
        let server = try ServerProcess(arguments: ["--config", config.path, "--memory"])

        let read = try HTTPTestClient(port: server.port).request("GET", "/v1/lists/people", headers: [("Origin", "http://app.example")])
        XCTAssertEqual(read.status, 503, "the load was still under way: \(read.text)")
        XCTAssertEqual(read.slug, "not-ready")
        XCTAssertEqual(read.header("Retry-After"), "1")
        // As every answer: how to cache it, and readable by a page of another origin.
        XCTAssertEqual(read.header("Cache-Control"), "no-store")
        XCTAssertEqual(read.header("Vary"), "Accept-Encoding")
        XCTAssertEqual(read.header("Access-Control-Allow-Origin"), "*")
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("PUT", "/v1/collections/people/records/p9",
                                                                      headers: [("Content-Type", "application/json")], body: Array("{}".utf8)).slug,
                       "not-ready")
        let ready = try HTTPTestClient(port: server.port).request("GET", "/readyz")
        XCTAssertEqual(ready.status, 503)
        XCTAssertEqual(ready.text, #"{"status":"starting"}"#)
        XCTAssertNotNil(ready.header("Cache-Control"), "the starting /readyz says how to cache it too")
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/healthz").status, 200, "alive while loading")

        XCTAssertTrue(server.waitUntilReady(within: 120), server.log)
        let outline = try HTTPTestClient(port: server.port).request("GET", "/v1/lists/people").json
        XCTAssertEqual(outline["totalRowCount"] as? Int, 20_001, "pinned + the seeded people")
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
    }
}
