import Foundation
import TestSupport
import XCTest

/// A memory store restarted (`--memory`, two processes in turn) numbers its changes above every
/// number of the process before it: no tag or version a client kept from that process matches
/// the new one's different data.
final class MemoryRestartTests: FolderTestCase {
    private var arguments: [String] { ["--config", folder.appendingPathComponent("sectional.json").path, "--memory"] }

    /// Starts a process, writes the record `p1` named `name` and returns the process.
    private func serve(writing name: String) throws -> ServerProcess {
        let server = try ServerProcess(arguments: arguments)
        XCTAssertTrue(server.waitUntilReady(), server.log)
        let put = try HTTPTestClient(port: server.port).request("PUT", "/v1/collections/people/records/p1",
                                                                 headers: [("Content-Type", "application/json")],
                                                                 body: Array(#"{"name":"\#(name)","team":"T"}"#.utf8))
        XCTAssertEqual(put.status, 201, put.text)
        return server
    }

    private func stop(_ server: ServerProcess) {
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0, server.log)
    }

    func testARestartedMemoryStoreMatchesNoTagOrVersionOfTheProcessBefore() throws {
        try TestApp.teamsConfig.write(to: folder.appendingPathComponent("sectional.json"), atomically: true, encoding: .utf8)
        let first = try serve(writing: "Ada")
        let client = try HTTPTestClient(port: first.port)
        let rows = try client.request("GET", "/v1/lists/people/rows")
        XCTAssertTrue(rows.text.contains("Ada"), rows.text)
        let listTag = try XCTUnwrap(rows.header("ETag"))
        let version: Int = try rows.json.value("version")
        let recordTag = try XCTUnwrap(try client.request("GET", "/v1/collections/people/records/p1").header("ETag"))
        stop(first)

        // The same config and the same one write: before, the same numbers, so the same tags.
        let second = try serve(writing: "Grace")
        defer { stop(second) }
        let again = try HTTPTestClient(port: second.port)
        let reread = try again.request("GET", "/v1/lists/people/rows", headers: [("If-None-Match", listTag)])
        XCTAssertEqual(reread.status, 200, "the list's tag of the process before names other rows")
        XCTAssertTrue(reread.text.contains("Grace"), reread.text)
        XCTAssertGreaterThan(try reread.json.value("version", as: Int.self), version)
        let record = try again.request("GET", "/v1/collections/people/records/p1", headers: [("If-None-Match", recordTag)])
        XCTAssertEqual(record.status, 200, "the record's tag of the process before names another record")
        let write = try again.request("PUT", "/v1/collections/people/records/p1",
                                      headers: [("Content-Type", "application/json"), ("If-Match", recordTag)],
                                      body: Array(#"{"name":"Ada","team":"T"}"#.utf8))
        XCTAssertEqual(write.status, 412, "If-Match with the process before's tag: \(write.text)")
        let changes = try again.request("GET", "/v1/lists/people/changes?since=\(version)")
        XCTAssertEqual(changes.status, 200, changes.text)
        XCTAssertEqual(try changes.json.value("reload", as: Bool.self), true, "a diff from a version this process never had: \(changes.text)")
    }
}
