import Foundation
import TestSupport
import XCTest

/// The durability check every store gets: a real server process takes a stream of writes, is
/// killed with `SIGKILL`, and a server started again (`restart`) answers every write that was
/// acknowledged before the kill.
func assertKill9LosesNoAcknowledgedWrite(start: () throws -> ServerProcess, restart: () throws -> ServerProcess,
                                         file: StaticString = #filePath, line: UInt = #line) throws {
    let server = try start()
    XCTAssertTrue(server.waitUntilReady(), file: file, line: line)
    let acknowledged = Counter()
    let writer = Thread {
        guard let client = try? HTTPTestClient(port: server.port) else { return }
        for n in 0..<100_000 {
            guard let answer = try? client.request("PUT", "/v1/collections/people/records/k\(n)",
                                                   headers: [("Content-Type", "application/json")],
                                                   body: Array("{\"name\":\"n\(n)\",\"team\":\"T\"}".utf8)),
                  answer.status == 201 else { return }
            acknowledged.increment()
        }
    }
    writer.start()
    XCTAssertTrue(eventually(within: 20) { acknowledged.value >= 50 }, "writes were acknowledged", file: file, line: line)
    server.signal(SIGKILL)
    XCTAssertNotNil(server.waitForExit(), file: file, line: line)
    XCTAssertTrue(eventually(within: 5) { writer.isFinished }, file: file, line: line)
    let count = acknowledged.value

    let restarted = try restart()
    XCTAssertTrue(restarted.waitUntilReady(), file: file, line: line)
    let client = try HTTPTestClient(port: restarted.port)
    for n in 0..<count {
        XCTAssertEqual(try client.request("GET", "/v1/collections/people/records/k\(n)").status, 200,
                       "acknowledged write k\(n) was lost", file: file, line: line)
    }
    let total: Int = try client.request("GET", "/v1/lists/people").json.value("totalRowCount")
    XCTAssertGreaterThanOrEqual(total, count + 1, file: file, line: line)
    restarted.signal(SIGTERM)
    XCTAssertEqual(restarted.waitForExit(), 0, file: file, line: line)
}
