import Foundation
import HTTPServer
import ListStore
import TestSupport
import XCTest

/// Tests of the real executable as a separate process: durability under `kill -9`, signals,
/// the command line.
final class ProcessTests: FolderTestCase {

    override func setUpWithError() throws {
        try super.setUpWithError()
        try TestApp.teamsConfig.write(to: folder.appendingPathComponent("sectional.json"), atomically: true, encoding: .utf8)
    }

    private var configArguments: [String] {
        ["--config", folder.appendingPathComponent("sectional.json").path, "--data", folder.appendingPathComponent("db.sqlite").path]
    }

    func testEveryAcknowledgedWriteSurvivesKill9() throws {
        try assertKill9LosesNoAcknowledgedWrite(start: { try ServerProcess(arguments: configArguments) },
                                                restart: { try ServerProcess(arguments: configArguments) })
    }

    func testSigtermLetsTheServerExitCleanly() throws {
        let server = try ServerProcess(arguments: configArguments)
        XCTAssertTrue(server.waitUntilReady())
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
        XCTAssertTrue(server.log.contains("\"msg\":\"stopped\""), server.log)
    }

    /// A reader of stderr that goes away does not kill the server (SIGPIPE): it goes on serving,
    /// dropping its log lines, and still stops gracefully with exit 0.
    func testTheServerOutlivesItsLogReader() throws {
        let server = try ServerProcess(arguments: configArguments)
        XCTAssertTrue(server.waitUntilReady())
        server.closeLog()
        let client = try HTTPTestClient(port: server.port)
        // Each request logs a line, which wakes the reader that then closes the pipe.
        XCTAssertTrue(eventually { _ = try? client.request("GET", "/healthz"); return server.logClosed })
        for n in 0..<20 {
            XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/healthz?n=\(n)").status, 200, "request \(n)")
        }
        server.signal(SIGTERM)  // the stop logs too
        XCTAssertEqual(server.waitForExit(), 0)
        XCTAssertEqual(server.process.terminationReason, .exit, "ended by signal \(server.process.terminationStatus)")
    }

    func testEveryRequestIsLoggedAsOneJSONLineWrittenBeforeExit() throws {
        let server = try ServerProcess(arguments: configArguments)
        XCTAssertTrue(server.waitUntilReady())
        let client = try HTTPTestClient(port: server.port)
        for n in 0..<200 { XCTAssertEqual(try client.request("GET", "/healthz?n=\(n)").status, 200) }
        XCTAssertEqual(try client.request("GET", "/v1/lists/nothing\"x").status, 400)
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
        let lines = server.log.split(separator: "\n").filter { $0.contains("\"msg\":\"request\"") }
        XCTAssertEqual(lines.filter { $0.contains(#""path":"/healthz""#) }.count, 200, "every request, flushed before the process exited")
        for line in lines {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            XCTAssertNotNil(object["time"] as? String)
            XCTAssertEqual(object["level"] as? String, "info")
            for field in ["method", "path", "route"] { XCTAssertNotNil(object[field] as? String, "\(field) in \(line)") }
            for field in ["status", "bytes", "duration_ms"] { XCTAssertNotNil(object[field] as? NSNumber, "\(field) in \(line)") }
        }
        XCTAssertTrue(lines.contains { $0.contains(#""path":"/v1/lists/nothing\"x""#) }, "paths are escaped")
        let time = try XCTUnwrap(lines.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?["time"] as? String)
        XCTAssertNotNil(time.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression), time)
    }

    /// A thread per core the process may use: started on one CPU (`taskset`), the server runs
    /// one thread, and says nothing of a thread pool (libmicrohttpd warns of a pool of 0 or 1
    /// threads); started as this test runs, one per CPU of the test's own affinity mask.
    func testThreadsFollowTheCoresTheProcessMayUse() throws {
        let cpus = try XCTUnwrap(System.allowedCPUs())
        let pinned = try ServerProcess(arguments: configArguments, launcher: ["/usr/bin/taskset", "-c", String(cpus[0])])
        XCTAssertTrue(pinned.waitUntilReady())
        XCTAssertTrue(pinned.log.contains(#""threads":1,"#), pinned.log)
        XCTAssertFalse(pinned.log.contains(#""level":"warn""#), pinned.log)
        pinned.signal(SIGTERM)
        XCTAssertEqual(pinned.waitForExit(), 0)
        let unpinned = try ServerProcess(arguments: configArguments)
        XCTAssertTrue(unpinned.log.contains(#""threads":\#(cpus.count),"#), unpinned.log)
    }

    /// Sends the head of a PUT with `Expect: 100-continue` and waits for `100 Continue`: from
    /// then on the server has the request in flight.
    private func startUpload(_ server: ServerProcess, body: [UInt8]) throws -> HTTPTestClient {
        let client = try HTTPTestClient(port: server.port)
        try client.send("PUT /v1/collections/people/records/slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Expect: 100-continue\r\nContent-Length: \(body.count)\r\n\r\n")
        let interim = try client.readUntil("\r\n\r\n")
        guard interim.hasPrefix("HTTP/1.1 100 ") else { throw UnexpectedAnswer(description: "no 100 Continue: \(interim)") }
        return client
    }

    func testSigtermDuringALongRequestLetsItFinishThenExits0() throws {
        let server = try ServerProcess(arguments: configArguments)
        XCTAssertTrue(server.waitUntilReady())
        let before = try HTTPTestClient(port: server.port)
        XCTAssertEqual(try before.request("GET", "/readyz").status, 200)
        let body = Array(#"{"name":"Slow Upload","team":"Design"}"#.utf8)
        let client = try startUpload(server, body: body)
        try client.send(Array(body[..<10]))
        server.signal(SIGTERM)
        // Draining: /readyz answers 503 on a connection opened before, new connections are refused.
        var ready: HTTPTestClient.Answer?
        XCTAssertTrue(eventually { ready = try? before.request("GET", "/readyz"); return ready?.status != 200 },
                      "readyz: \(ready?.status ?? 0)")
        XCTAssertEqual(ready?.status, 503)
        XCTAssertEqual(ready?.text, #"{"status":"draining"}"#)
        XCTAssertTrue(eventually { (try? HTTPTestClient(port: server.port)) == nil })
        // The request already under way is still served, then the server exits 0.
        try client.send(Array(body[10...]))
        XCTAssertEqual(try client.readAnswer().status, 201)
        XCTAssertEqual(server.waitForExit(), 0)
        XCTAssertTrue(server.log.contains("\"msg\":\"stopped\""), server.log)
    }

    func testSigtermWaitsAtMostTenSecondsForARequestThatNeverEnds() throws {
        let server = try ServerProcess(arguments: configArguments)
        XCTAssertTrue(server.waitUntilReady())
        let body = Array(#"{"name":"Never Finished","team":"Design"}"#.utf8)
        let client = try startUpload(server, body: body)
        try client.send(Array(body[..<10]))
        let signalled = Date()
        server.signal(SIGTERM)
        XCTAssertTrue(eventually(within: 20) { !server.process.isRunning }, "still running 20 s after SIGTERM")
        let waited = Date().timeIntervalSince(signalled)
        let status = server.waitForExit()
        XCTAssertEqual(status, 0, "exit status after \(waited) s")
        XCTAssertGreaterThanOrEqual(waited, 9, "the request under way was given its grace period")
        XCTAssertLessThan(waited, 20, "the grace period (10 s) is the contract: not waited far past it")
        XCTAssertTrue(client.isClosedByPeer(), "the unfinished request's connection is closed")
    }

    func testLibmicrohttpdMessagesAreJSONLogLines() throws {
        let server = try ServerProcess(arguments: configArguments)
        XCTAssertTrue(eventually { (try? HTTPTestClient(port: server.port).request("GET", "/readyz").status) == 200 })
        let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        try client.send("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n")
        _ = try client.readUntilClosed()
        XCTAssertTrue(eventually { server.log.contains("Content-Length") }, server.log)
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
        for line in server.log.split(separator: "\n") {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            XCTAssertNotNil(object, "not a JSON log line: \(line)")
        }
    }

    /// A shell's `export SECTIONAL_DATA=…` (or a log level, a token) does not reach the servers
    /// the tests start: they would write into that store, or not say where they listen.
    func testTheServersTestsStartDoNotTakeTheShellsServerSettings() throws {
        let elsewhere = folder.appendingPathComponent("shell.sqlite").path
        setenv("SECTIONAL_DATA", elsewhere, 1)
        setenv("SECTIONAL_LOG_LEVEL", "warn", 1)
        defer { unsetenv("SECTIONAL_DATA"); unsetenv("SECTIONAL_LOG_LEVEL") }
        // The store named by the file only, as BackupTests' servers have it (a flag would win anyway).
        let own = folder.appendingPathComponent("own.sqlite").path
        let config = folder.appendingPathComponent("stored.json")
        try (#"{"storage":{"kind":"sqlite","path":"\#(own)"},"# + TestApp.teamsConfig.drop { $0 != "{" }.dropFirst())
            .write(to: config, atomically: true, encoding: .utf8)
        let server = try ServerProcess(arguments: ["--config", config.path])
        XCTAssertTrue(eventually { (try? HTTPTestClient(port: server.port).request("GET", "/readyz").status) == 200 })
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("PUT", "/v1/collections/people/records/p1",
                                                                     headers: [("Content-Type", "application/json")],
                                                                     body: Array(#"{"name":"Ada"}"#.utf8)).status, 201)
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere), "the shell's store was not opened")
        XCTAssertTrue(FileManager.default.fileExists(atPath: own), "the file's store was")
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
    }

    func testDuplicateRowsAreLoggedAtMostOnceAMinutePerList() throws {
        // The first spec claims VIPs, so a VIP's row under its team is a dropped duplicate.
        try """
        { "lists": { "people": { "sections": [
            { "source": "people", "key": "vips", "where": { "vip": true }, "row": { "title": "{name}" } },
            { "source": "people", "groupBy": "team", "row": { "title": "{name}" } } ] } } }
        """.write(to: folder.appendingPathComponent("sectional.json"), atomically: true, encoding: .utf8)
        let server = try ServerProcess(arguments: configArguments, environment: ["SECTIONAL_LOG_LEVEL": "info"])
        XCTAssertTrue(eventually { (try? HTTPTestClient(port: server.port).request("GET", "/readyz").status) == 200 })
        let client = try HTTPTestClient(port: server.port)
        for n in 0..<20 {   // every write changes the count of duplicates (1, 0, 1, …)
            let answer = try client.request("PUT", "/v1/collections/people/records/p1", headers: [("Content-Type", "application/json")],
                                            body: Array("{\"name\":\"Ada\",\"team\":\"T\",\"vip\":\(n % 2 == 0)}".utf8))
            XCTAssertEqual(answer.status, n == 0 ? 201 : 200)
        }
        let metrics = try client.request("GET", "/metrics").text
        XCTAssertTrue(metrics.contains("sectional_duplicate_rows_total{list=\"people\"} 10"), "every duplicate is counted: \(metrics)")
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
        let lines = server.log.split(separator: "\n").filter { $0.contains("\"msg\":\"duplicate rows dropped\"") }
        XCTAssertEqual(lines.count, 1, "logged once within the minute: \(lines)")
        XCTAssertTrue(lines.first?.contains("\"list\":\"people\",\"count\":1") == true, "\(lines)")
    }

    func testCheckReportsListsOrEveryErrorWithItsPath() throws {
        let good = try run(["check", "--config", folder.appendingPathComponent("sectional.json").path])
        XCTAssertEqual(good.status, 0)
        XCTAssertTrue(good.output.contains("people: 1 section, 1 row with the seed data"), good.output)
        XCTAssertTrue(good.output.contains("sections[0] (literal rows): 1 section, 1 row\n"), good.output)
        XCTAssertTrue(good.output.contains("sections[1] (from people): 0 sections, 0 rows\n"), good.output)

        let bad = folder.appendingPathComponent("bad.json")
        try """
        { "server": { "port": "eighty" }, "typo": 1,
          "lists": { "l": { "sections": [ { "type": "x", "rows": [] }, { "source": "p", "row": { "title": "{name|shout}" } } ] } } }
        """.write(to: bad, atomically: true, encoding: .utf8)
        let failed = try run(["check", "--config", bad.path])
        XCTAssertEqual(failed.status, 1)
        for path in ["server.port", "typo", "lists.l.sections[0]", "lists.l.sections[1].row.title"] {
            XCTAssertTrue(failed.errors.contains(path), "missing \(path) in: \(failed.errors)")
        }
    }

    /// `check` reads the environment `serve` reads, so the two agree: a PostgreSQL store named
    /// by `SECTIONAL_DATABASE_URL` passes (nothing is connected to), a bad `SECTIONAL_PORT` fails.
    func testCheckReadsTheEnvironmentServeReads() throws {
        let postgres = folder.appendingPathComponent("postgres.json")
        try #"{ "storage": { "kind": "postgres" }, "lists": {} }"#.write(to: postgres, atomically: true, encoding: .utf8)
        let named = try ChildProcess.run(ServerProcess.executable, ["check", "--config", postgres.path],
                                         environment: ["SECTIONAL_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"])
        XCTAssertEqual(named.status, 0, named.errors)
        let port = try ChildProcess.run(ServerProcess.executable, ["check", "--config", folder.appendingPathComponent("sectional.json").path],
                                        environment: ["SECTIONAL_PORT": "abc"])
        XCTAssertEqual(port.status, 1)
        XCTAssertTrue(port.errors.contains("SECTIONAL_PORT"), port.errors)
    }

    func testUsageErrorsExit2AndExposedBindNeedsAToken() throws {
        let usage = try run(["serve", "--bogus"])
        XCTAssertEqual(usage.status, 2)
        XCTAssertTrue(usage.errors.contains("Usage:"))
        let exposed = try run(["serve", "--host", "0.0.0.0", "--port", "0"] + configArguments)
        XCTAssertEqual(exposed.status, 1)
        XCTAssertTrue(exposed.errors.contains("--allow-unauthenticated-writes"), exposed.errors)
    }

    /// An environment the config cannot be used with is named as such, not blamed on the file.
    func testBackupAndTokenNameTheEnvironmentsProblemNotTheFile() throws {
        let config = folder.appendingPathComponent("sectional.json").path
        for arguments in [["backup", "--to", folder.appendingPathComponent("copy.sqlite").path, "--config", config],
                          ["token", "--sub", "ann", "--config", config]] {
            let answer = try ChildProcess.run(ServerProcess.executable, arguments, environment: ["SECTIONAL_LOG_LEVEL": "verbose"])
            XCTAssertEqual(answer.status, 1, "\(arguments)")
            XCTAssertFalse(answer.errors.contains("cannot read"), answer.errors)
            XCTAssertTrue(answer.errors.contains("SECTIONAL_LOG_LEVEL"), answer.errors)
        }
    }

    /// A message that cannot be written (stderr on a full device, a closed pipe) is given up,
    /// and the command still ends with its own status (it trapped: SIGILL).
    func testAnUnwritableStderrKeepsTheExitStatus() throws {
        for (arguments, status) in [(["--bogus"], Int32(2)), (["check", "--config", folder.appendingPathComponent("none.json").path], 1)] {
            let process = Process()
            process.executableURL = ServerProcess.executable
            process.arguments = arguments
            process.environment = ChildProcess.inheritedEnvironment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
            try process.run()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .exit, "\(arguments)")
            XCTAssertEqual(process.terminationStatus, status, "\(arguments)")
        }
    }

    /// `--help` and `--version` answer with any other flags on the line, as other tools do (a
    /// flag of another command after them was a usage error, exit 2).
    func testHelpAndVersionWinOverOtherFlags() throws {
        for arguments in [["backup", "--to", "x", "--help"], ["token", "--sub", "a", "--help"], ["--memory", "--data", "d", "-h"],
                          ["--help", "--bogus"], ["--port", "abc", "--help"], ["--help", "--port"], ["--data", "--help"]] {
            let answer = try run(arguments)
            XCTAssertEqual(answer.status, 0, "\(arguments): \(answer.errors)")
            XCTAssertTrue(answer.output.contains("Usage:"), "\(arguments)")
        }
        let version = try run(["token", "--sub", "a", "--version"])
        XCTAssertEqual(version.status, 0, version.errors)
        XCTAssertTrue(version.output.hasPrefix("sectional "), version.output)
    }

    /// A switch given a value (`--allow-unauthenticated-writes=false`) is a usage error, never
    /// the switch turned on: `=false` must not lift the no-token guard on an exposed address.
    func testASwitchGivenAValueIsAUsageError() throws {
        let exposed = try ChildProcess.run(ServerProcess.executable, ["serve", "--host", "0.0.0.0", "--port", "0",
                                                                      "--allow-unauthenticated-writes=false"] + configArguments, timeout: 10)
        XCTAssertEqual(exposed.status, 2, exposed.errors)
        XCTAssertTrue(exposed.errors.hasPrefix("sectional: --allow-unauthenticated-writes takes no value\n"), exposed.errors)
        for flag in ["--memory=false", "--help=x", "--version=x"] {
            let answer = try run(["serve", flag, "--config", folder.appendingPathComponent("missing.json").path])
            XCTAssertEqual(answer.status, 2, flag)
            let name = String(flag.prefix { $0 != "=" })
            XCTAssertTrue(answer.errors.hasPrefix("sectional: \(name) takes no value\n"), answer.errors)
        }
    }

    /// Every reason `serve` cannot start is told in one format on stderr, exit 1: `sectional:
    /// cannot start with PATH:` and the problems, each on a line of its own (a port in use and a
    /// store that cannot be made were a JSON log line instead).
    func testEveryStartUpFailureIsToldInOneFormat() throws {
        let config = folder.appendingPathComponent("sectional.json").path
        let invalid = folder.appendingPathComponent("invalid.json")
        try #"{"lists": 3}"#.write(to: invalid, atomically: true, encoding: .utf8)
        let missing = folder.appendingPathComponent("missing.json").path
        let running = try ServerProcess(arguments: ["--config", config, "--memory"])
        defer { running.signal(SIGKILL) }
        let file = folder.appendingPathComponent("file")
        try Data().write(to: file)
        let garbage = folder.appendingPathComponent("garbage.sqlite").path
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: garbage))
        for (arguments, path, problem) in [
            (["--config", missing, "--memory", "--port", "0"], missing, "cannot read config file"),
            (["--config", invalid.path, "--memory", "--port", "0"], invalid.path, "lists: expected an object"),
            (["--config", config, "--memory", "--port", String(running.port)], config, "cannot listen on 127.0.0.1:\(running.port)"),
            (["--config", config, "--data", file.appendingPathComponent("db.sqlite").path, "--port", "0"], config, "cannot create folder"),
            // The file at fault is named, not only the config.
            (["--config", config, "--data", garbage, "--port", "0"], config, "SQLite error 26: \(garbage): file is not a database"),
        ] {
            let failed = try ChildProcess.run(ServerProcess.executable, ["serve"] + arguments, timeout: 30)
            XCTAssertEqual(failed.status, 1, failed.errors)
            XCTAssertTrue(failed.errors.contains("sectional: cannot start with \(path):\n  \(problem)"), failed.errors)
            XCTAssertFalse(failed.errors.contains(#""msg":"cannot start""#), failed.errors)
        }
    }

    /// A damaged store (written by hand): a record that is no JSON, and one that is JSON but no
    /// object, are each left out of the lists with a log line naming them; the rest is served.
    func testStoredRecordsThatAreNoJSONObjectAreSkippedAndLogged() throws {
        let store = try SQLiteStore(path: folder.appendingPathComponent("db.sqlite").path)
        _ = try store.commit([.upsert(collection: "people", id: "p1", json: Array(#"{"id":"p1","name":"Ada","team":"Design"}"#.utf8)),
                              .upsert(collection: "people", id: "p2", json: Array("{bad".utf8)),
                              .upsert(collection: "people", id: "p3", json: Array("[1,2]".utf8))])
        store.close()
        let server = try ServerProcess(arguments: configArguments)
        defer { server.signal(SIGKILL) }
        XCTAssertTrue(server.waitUntilReady())
        let page = try HTTPTestClient(port: server.port).request("GET", "/v1/lists/people/rows?pageSize=10").text
        XCTAssertTrue(page.contains(#""id":"p1""#), page)
        XCTAssertFalse(page.contains(#""id":"p2""#) || page.contains(#""id":"p3""#), page)
        for id in ["p2", "p3"] {
            XCTAssertTrue(server.log.contains(#""msg":"skipping unreadable stored record (not a JSON object)","collection":"people","id":"\#(id)""#),
                          "\(id): \(server.log)")
        }
    }

    private func run(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(ServerProcess.executable, arguments)
    }
}
