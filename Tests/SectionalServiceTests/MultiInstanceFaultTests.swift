import Foundation
import TestSupport
import XCTest

/// Several instances on one PostgreSQL while things fail: an instance killed with `SIGKILL`
/// during a stream of writes, and the database itself stopped and started again.
final class MultiInstanceFaultTests: FolderTestCase {
    /// Every record write acknowledged by any instance is in the list on every instance (pages
    /// walked by their tokens).
    private func assertHoldsEveryAcknowledged(_ ids: [String], on ports: [Int], file: StaticString = #filePath, line: UInt = #line) throws {
        for port in ports {
            var present: Set<String> = []
            var token: String?
            repeat {
                let target = "/v1/lists/people/rows?pageSize=500" + (token.map { "&pageToken=\($0)" } ?? "")
                let page = try MultiInstance.request(port, "GET", target).expect(200).json
                for section in try page.value("sections", as: [[String: Any]].self) {
                    for row in try section.value("rows", as: [[String: Any]].self) { present.insert(try row.value("id", as: String.self)) }
                }
                token = page["nextPageToken"] as? String
            } while token != nil
            let missing = ids.filter { !present.contains($0) }
            XCTAssertTrue(missing.isEmpty, "\(missing.count) acknowledged writes missing on port \(port), e.g. \(missing.prefix(5))",
                          file: file, line: line)
        }
    }

    func testKillingAnInstanceDuringWritesLosesNoAcknowledgedWrite() throws {
        let database = try PostgresTestDatabase(cluster: try PostgresTestDatabase.clusterURL())
        defer { database.drop() }
        let configPath = folder.appendingPathComponent("sectional.json").path
        try MultiInstance.config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let survivors = try (0..<2).map { _ in try TestApp(config: MultiInstance.config, postgres: database.url, token: MultiInstance.token) }
        let environment = ["SECTIONAL_API_TOKEN": MultiInstance.token]
        let arguments = ["--config", configPath, "--database-url", database.url]
        let victim = try ServerProcess(arguments: arguments, environment: environment)
        XCTAssertTrue(victim.waitUntilReady())
        let streams = [WriteStream(port: victim.port, prefix: "k", headers: MultiInstance.headers),
                       WriteStream(port: survivors[0].port, prefix: "s", headers: MultiInstance.headers)]
        streams.forEach { $0.start(threads: 2) }
        XCTAssertTrue(eventually(within: 20) { streams[0].answers.acknowledged.count >= 40 }, "the victim acknowledged writes")
        victim.signal(SIGKILL)
        XCTAssertNotNil(victim.waitForExit())
        XCTAssertTrue(streams[0].stop())
        XCTAssertTrue(eventually(within: 20) { streams[1].answers.acknowledged.count >= 40 }, "the survivors write on")
        XCTAssertTrue(streams[1].stop())
        let acknowledged = streams.flatMap(\.answers.acknowledged)
        XCTAssertEqual(streams[1].answers.unexpected, [])

        let restarted = try ServerProcess(arguments: arguments, environment: environment)
        XCTAssertTrue(restarted.waitUntilReady())
        let last = try MultiInstance.request(restarted.port, "GET", "/v1/lists/people").expect(200).json.value("version", as: Int.self)
        let ports = survivors.map(\.port) + [restarted.port]
        for port in ports { XCTAssertTrue(MultiInstance.catchUp(port, to: last)) }
        try assertHoldsEveryAcknowledged(acknowledged, on: ports)
        let outlines = try ports.map { try MultiInstance.request($0, "GET", "/v1/lists/people").expect(200).body }
        XCTAssertEqual(Set(outlines).count, 1, "survivors and the restarted instance agree")
        restarted.signal(SIGTERM)
        XCTAssertEqual(restarted.waitForExit(), 0)
    }

    func testInstancesRideOutARestartOfTheDatabase() throws {
        let cluster = try PostgresCluster()
        let apps = try (0..<2).map { _ in try TestApp(config: MultiInstance.config, postgres: cluster.url, token: MultiInstance.token) }
        let (a, b) = (apps[0].port, apps[1].port)
        let stream = WriteStream(port: a, prefix: "w", headers: MultiInstance.headers)
        stream.start(threads: 2)
        XCTAssertTrue(eventually(within: 20) { stream.answers.acknowledged.count >= 20 })

        try cluster.stop()
        for port in [a, b] {
            XCTAssertTrue(eventually(within: 15) {
                (try? HTTPTestClient(port: port).request("GET", "/readyz").text) == #"{"status":"unavailable","storageFault":"unreachable"}"#
            }, "/readyz on port \(port) answers 503 while the database is gone")
            XCTAssertEqual(try HTTPTestClient(port: port).request("GET", "/readyz").status, 503)
        }
        XCTAssertTrue(eventually(within: 15) { stream.answers.refused.count >= 3 }, "writes are refused while it is down")
        let refused = try MultiInstance.request(b, "PUT", "/v1/collections/people/records/x", json: #"{"name":"X"}"#)
        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertEqual(refused.slug, "storage-unavailable")
        XCTAssertNotNil(refused.header("Retry-After"))
        let during = try MultiInstance.request(b, "GET", "/v1/lists/people").expect(200)

        try cluster.start()
        for port in [a, b] {
            XCTAssertTrue(eventually(within: 20) { (try? HTTPTestClient(port: port).request("GET", "/readyz").status) == 200 },
                          "/readyz on port \(port) recovers")
        }
        let before = stream.answers.acknowledged.count
        XCTAssertTrue(eventually(within: 20) { stream.answers.acknowledged.count >= before + 20 }, "writes succeed again")
        XCTAssertTrue(stream.stop())
        XCTAssertEqual(stream.answers.unexpected, [])
        let last = try MultiInstance.request(a, "GET", "/v1/lists/people").expect(200).json.value("version", as: Int.self)
        XCTAssertGreaterThan(last, try during.json.value("version", as: Int.self))
        XCTAssertTrue(MultiInstance.catchUp(b, to: last), "the other instance caught up")
        try assertHoldsEveryAcknowledged(stream.answers.acknowledged, on: [a, b])
        XCTAssertEqual(try MultiInstance.request(a, "GET", "/v1/lists/people").body,
                       try MultiInstance.request(b, "GET", "/v1/lists/people?minVersion=\(last)").body)
    }

    /// An instance that falls behind the start of the change log (stopped while another wrote,
    /// the log cut past it meanwhile) can apply no commit again, not even its own: `/readyz`
    /// says so (`503 behind`), where it said ready while serving a frozen list.
    func testAnInstanceBehindTheChangeLogsStartIsNotReady() throws {
        let database = try PostgresTestDatabase(cluster: try PostgresTestDatabase.clusterURL())
        defer { database.drop() }
        let configPath = folder.appendingPathComponent("sectional.json").path
        try MultiInstance.config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let writer = try TestApp(config: MultiInstance.config, postgres: database.url, token: MultiInstance.token)
        let behind = try ServerProcess(arguments: ["--config", configPath, "--database-url", database.url],
                                       environment: ["SECTIONAL_API_TOKEN": MultiInstance.token])
        XCTAssertTrue(behind.waitUntilReady())
        behind.signal(SIGSTOP)
        defer { behind.signal(SIGCONT) }
        for i in 0..<3 { try MultiInstance.request(writer.port, "PUT", "/v1/collections/people/records/b\(i)", json: #"{"name":"B","team":"Ops"}"#).expect(200...201) }
        // The log cut as its pruning would: only the last commit left.
        try database.query("DELETE FROM changes WHERE sequence < (SELECT max(sequence) FROM changes)")
        behind.signal(SIGCONT)
        XCTAssertTrue(eventually(within: 20) {
            (try? HTTPTestClient(port: behind.port).request("GET", "/readyz").text) == #"{"status":"behind"}"#
        }, "/readyz of the instance behind")
        XCTAssertEqual(try HTTPTestClient(port: behind.port).request("GET", "/readyz").status, 503)
        XCTAssertEqual(try HTTPTestClient(port: writer.port).request("GET", "/readyz").status, 200)
        behind.signal(SIGTERM)
        XCTAssertEqual(behind.waitForExit(), 0)
    }

}
