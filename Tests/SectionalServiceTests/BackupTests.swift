import Foundation
import TestSupport
import XCTest

/// `sectional backup`: a copy of the live store, taken while the real server serves and writes,
/// holds every write acknowledged before the backup began, and a server starts on it.
final class BackupTests: FolderTestCase {
    private var config: URL { folder.appendingPathComponent("sectional.json") }
    private var database: URL { folder.appendingPathComponent("db.sqlite") }

    override func setUpWithError() throws {
        try super.setUpWithError()
        // The config names the store, so `backup --config` finds it.
        let text = TestApp.teamsConfig.replacingOccurrences(of: "{\n  \"lists\"", with: "{\n  \"storage\": { \"path\": \"db.sqlite\" },\n  \"lists\"")
        XCTAssertTrue(text.contains("\"storage\""))
        try text.write(to: config, atomically: true, encoding: .utf8)
    }

    func testABackupUnderAWriteStreamHoldsEveryWriteAcknowledgedBeforeItBegan() throws {
        let server = try ServerProcess(arguments: ["--config", config.path])
        XCTAssertTrue(server.waitUntilReady())
        let stream = WriteStream(port: server.port, prefix: "w")
        stream.start(threads: 2)
        XCTAssertTrue(eventually(within: 30) { stream.answers.acknowledged.count >= 300 })

        let before = stream.answers.acknowledged
        let copy = folder.appendingPathComponent("backups/copy.sqlite")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        let result = try ChildProcess.run(ServerProcess.executable, ["backup", "--to", copy.path, "--config", config.path])
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertTrue(result.output.contains("backed up to \(copy.path)"), result.output)
        // The server went on taking writes meanwhile and after.
        let during = stream.answers.acknowledged.count
        XCTAssertTrue(eventually(within: 30) { stream.answers.acknowledged.count >= during + 50 }, "writes go on after the backup")
        XCTAssertTrue(stream.stop())
        XCTAssertEqual(stream.answers.unexpected, [])
        XCTAssertEqual(stream.answers.refused, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.path + "-wal"), "the copy is one file")

        let restored = try ServerProcess(arguments: ["--config", config.path, "--data", copy.path])
        XCTAssertTrue(restored.waitUntilReady())
        let client = try HTTPTestClient(port: restored.port)
        var missing: [String] = []
        for id in before {
            let answer = try client.request("GET", "/v1/collections/people/records/\(id)")
            if answer.status != 200 || (try? answer.json["name"] as? String) != id { missing.append(id) }
        }
        XCTAssertEqual(missing, [], "writes acknowledged before the backup began are in the copy")
        let total: Int = try client.request("GET", "/v1/lists/people").json.value("totalRowCount")
        XCTAssertGreaterThanOrEqual(total, before.count + 1)
        XCTAssertLessThanOrEqual(total, stream.answers.acknowledged.count + 1)
        restored.signal(SIGTERM)
        XCTAssertEqual(restored.waitForExit(), 0)
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
    }

    /// The original went on after the backup: a server on the copy must not give the numbers it
    /// used since to other contents (a client holding one would get a `304` for another body,
    /// or an empty `changes`). Every list moves to a version past any of them, once.
    func testARestoredCopyNeverReusesAVersionTheOriginalUsedAfterTheBackup() throws {
        let put = { (client: HTTPTestClient, name: String) throws -> Int in
            let answer = try client.request("PUT", "/v1/collections/people/records/p1", headers: [("Content-Type", "application/json")],
                                            body: Array(#"{"name":"\#(name)","team":"Design"}"#.utf8))
            XCTAssertTrue([200, 201].contains(answer.status))
            return try XCTUnwrap(Int(answer.header("Sectional-Version") ?? ""))
        }
        let server = try ServerProcess(arguments: ["--config", config.path])
        XCTAssertTrue(server.waitUntilReady())
        let original = try HTTPTestClient(port: server.port)
        _ = try put(original, "Ada")
        let copy = folder.appendingPathComponent("copy.sqlite")
        let result = try ChildProcess.run(ServerProcess.executable, ["backup", "--to", copy.path, "--config", config.path])
        XCTAssertEqual(result.status, 0, result.errors)
        var seen: [(version: Int, tag: String)] = []
        for name in ["Bea", "Cy", "Dee"] {
            let version = try put(original, name)
            seen.append((version, try XCTUnwrap(original.request("GET", "/v1/lists/people/rows").header("ETag"))))
        }
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)

        let restored = try ServerProcess(arguments: ["--config", config.path, "--data", copy.path])
        XCTAssertTrue(restored.waitUntilReady())
        let client = try HTTPTestClient(port: restored.port)
        var versions: [Int] = []
        for name in ["Eve", "Fay", "Gus"] {
            versions.append(try put(client, name))
            let tag = try XCTUnwrap(client.request("GET", "/v1/lists/people/rows").header("ETag"))
            XCTAssertFalse(seen.map(\.tag).contains(tag), "\(tag) was the original's, for other rows")
            XCTAssertEqual(try client.request("GET", "/v1/lists/people/rows", headers: [("If-None-Match", tag)]).status, 304)
        }
        XCTAssertGreaterThan(versions[0], seen.map(\.version).max()!)
        for old in seen {
            XCTAssertEqual(try client.request("GET", "/v1/lists/people/rows", headers: [("If-None-Match", old.tag)]).status, 200)
            let changes = try client.request("GET", "/v1/lists/people/changes?since=\(old.version)")
            XCTAssertEqual(changes.status, 200)
            XCTAssertEqual(try changes.json.value("reload", as: Bool.self), true, "since \(old.version), a version of the original only")
        }
        restored.signal(SIGTERM)
        XCTAssertEqual(restored.waitForExit(), 0)

        // Marked once: the next start goes on from where the copy is.
        let again = try ServerProcess(arguments: ["--config", config.path, "--data", copy.path])
        XCTAssertTrue(again.waitUntilReady())
        let next = try put(try HTTPTestClient(port: again.port), "Hal")
        XCTAssertEqual(next, versions.last! + 1)
        again.signal(SIGTERM)
        XCTAssertEqual(again.waitForExit(), 0)
    }

    /// `SECTIONAL_DATA` names the store as `--data` does, with no config file to read (the one
    /// `SECTIONAL_CONFIG` names is missing).
    func testSECTIONAL_DATANamesTheStoreWithoutAConfig() throws {
        let server = try ServerProcess(arguments: ["--config", config.path])
        XCTAssertTrue(server.waitUntilReady())
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("PUT", "/v1/collections/people/records/p1",
                                                                     headers: [("Content-Type", "application/json")],
                                                                     body: Array(#"{"name":"Ada","team":"Design"}"#.utf8)).status, 201)
        let copy = folder.appendingPathComponent("env-copy.sqlite")
        let result = try ChildProcess.run(ServerProcess.executable, ["backup", "--to", copy.path],
                                          environment: ["SECTIONAL_DATA": database.path,
                                                        "SECTIONAL_CONFIG": folder.appendingPathComponent("none.json").path])
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertTrue(result.output.contains("\(database.path) backed up to \(copy.path)"), result.output)
        // With SECTIONAL_DATABASE_URL set too, serve would use PostgreSQL: no copy of the file.
        let other = folder.appendingPathComponent("env-copy-2.sqlite")
        let both = try ChildProcess.run(ServerProcess.executable, ["backup", "--to", other.path],
                                        environment: ["SECTIONAL_DATA": database.path, "SECTIONAL_DATABASE_URL": "postgresql://localhost/x",
                                                      "SECTIONAL_CONFIG": folder.appendingPathComponent("none.json").path])
        XCTAssertEqual(both.status, 1)
        XCTAssertTrue(both.errors.contains("SECTIONAL_DATABASE_URL is set"), both.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: other.path))
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
    }

    /// The copy is written in rollback mode, so a `FILE-journal` left beside the destination (an
    /// earlier copy's interrupted write) would be played back into the new copy on its first
    /// open: refused, as a `FILE-wal` is, and the old copy left as it was.
    func testABackupBesideALeftoverJournalIsRefused() throws {
        let server = try ServerProcess(arguments: ["--config", config.path])
        XCTAssertTrue(server.waitUntilReady())
        let copy = folder.appendingPathComponent("copy.sqlite").path
        try Data("an earlier copy".utf8).write(to: URL(fileURLWithPath: copy))
        try Data("a hot journal".utf8).write(to: URL(fileURLWithPath: copy + "-journal"))
        let refused = try ChildProcess.run(ServerProcess.executable, ["backup", "--to", copy, "--config", config.path])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.errors.contains("\(copy)-journal exists"), refused.errors)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: copy)), Data("an earlier copy".utf8), "left alone")
        try FileManager.default.removeItem(atPath: copy + "-journal")
        XCTAssertEqual(try ChildProcess.run(ServerProcess.executable, ["backup", "--to", copy, "--config", config.path]).status, 0)
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
    }

    func testABackupOfAMissingStoreFailsAndWritesNothing() throws {
        let copy = folder.appendingPathComponent("copy.sqlite")
        let result = try ChildProcess.run(ServerProcess.executable,
                                          ["backup", "--to", copy.path, "--data", folder.appendingPathComponent("none.sqlite").path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errors.contains("cannot open SQLite database"), result.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("none.sqlite").path), "no store was created")
    }

    /// A backup to a FILE another backup is writing (its `FILE.partial` claimed, as a backup
    /// holds it) is refused, and leaves that backup's partial copy and FILE alone; once the claim
    /// is gone, a partial copy left behind is started over. Two overlapping backups to one FILE
    /// deleted each other's partial copy, and one could exit 0 with the other's copy in place.
    func testASecondBackupToTheSameFileIsRefusedWhileTheFirstWrites() throws {
        let server = try ServerProcess(arguments: ["--config", config.path])
        XCTAssertTrue(server.waitUntilReady())
        let copy = folder.appendingPathComponent("copy.sqlite").path
        let partial = copy + ".partial"
        try Data("a killed backup's bytes".utf8).write(to: URL(fileURLWithPath: partial))
        let claim = open(partial, O_RDWR | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(claim, 0)
        XCTAssertEqual(flock(claim, LOCK_EX | LOCK_NB), 0)
        let refused = try ChildProcess.run(ServerProcess.executable, ["backup", "--to", copy, "--config", config.path])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.errors.contains("another backup to \(copy) is under way"), refused.errors)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: partial)), Data("a killed backup's bytes".utf8), "left alone")
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy))
        close(claim)
        let made = try ChildProcess.run(ServerProcess.executable, ["backup", "--to", copy, "--config", config.path])
        XCTAssertEqual(made.status, 0, made.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial), "renamed into place")
        let started = try ServerProcess(arguments: ["--config", config.path, "--data", copy])
        XCTAssertTrue(started.waitUntilReady(), "the copy is a whole store")
        started.signal(SIGTERM)
        XCTAssertEqual(started.waitForExit(), 0)
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
    }

    func testABackupNeverReplacesTheStoreItself() throws {
        let server = try ServerProcess(arguments: ["--config", config.path])
        XCTAssertTrue(server.waitUntilReady())
        let result = try ChildProcess.run(ServerProcess.executable, ["backup", "--to", database.path, "--data", database.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.errors.contains("would replace the database itself"), result.errors)
        // Nor the write-ahead log beside it, which holds acknowledged writes until a checkpoint.
        XCTAssertTrue(FileManager.default.fileExists(atPath: database.path + "-wal"), "a serving store has its log")
        let log = try ChildProcess.run(ServerProcess.executable, ["backup", "--to", database.path + "-wal", "--data", database.path])
        XCTAssertEqual(log.status, 1)
        XCTAssertTrue(log.errors.contains("would replace the database's own -wal file"), log.errors)
        // By name too, for files not there now (SQLite deletes a journal it finds at start; a
        // replaced lock file would let a second server in), through `..` and links as well.
        for name in [database.path + "-journal", database.path + ".lock", folder.path + "/../\(folder.lastPathComponent)/db.sqlite-journal"] {
            let refused = try ChildProcess.run(ServerProcess.executable, ["backup", "--to", name, "--data", database.path])
            XCTAssertEqual(refused.status, 1, name)
            XCTAssertTrue(refused.errors.contains("would replace the database's own"), refused.errors)
        }
        // Through a link to the store, its lock file and its log (named after the file the link
        // leads to, as SQLite names it: the backup had replaced it, losing what it held) are the
        // store's own.
        let alias = folder.appendingPathComponent("alias.sqlite")
        try FileManager.default.createSymbolicLink(at: alias, withDestinationURL: database)
        for (name, file) in [(database.path + ".lock", ".lock"), (database.path + "-wal", "-wal"), (database.path + "-journal", "-journal")] {
            let throughLink = try ChildProcess.run(ServerProcess.executable, ["backup", "--to", name, "--data", alias.path])
            XCTAssertEqual(throughLink.status, 1, name)
            XCTAssertTrue(throughLink.errors.contains("own \(file) file"), throughLink.errors)
        }
        let nowhere = try ChildProcess.run(ServerProcess.executable,
                                           ["backup", "--to", folder.path + "/missing/../copy.sqlite", "--data", database.path])
        XCTAssertEqual(nowhere.status, 1)
        XCTAssertTrue(nowhere.errors.contains("does not exist"), nowhere.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/copy.sqlite.partial"), "no copy left behind")
        XCTAssertEqual(try HTTPTestClient(port: server.port).request("GET", "/v1/lists/people").status, 200)
        server.signal(SIGTERM)
        XCTAssertEqual(server.waitForExit(), 0)
    }

    func testTheBackupCommandLineIsChecked() throws {
        for (arguments, message) in [(["backup"], "backup needs --to FILE"),
                                     (["backup", "--to", "x", "--config", "c", "--data", "d"], "not both"),
                                     (["backup", "--to", "x", "--port", "1"], "backup takes only"),
                                     (["backup", "--to", "x", "--database-url", "postgresql://x@h/d"], "backup takes only"),
                                     (["serve", "--to", "x"], "--to is for backup")] {
            let result = try ChildProcess.run(ServerProcess.executable, arguments)
            XCTAssertEqual(result.status, 2, arguments.joined(separator: " "))
            XCTAssertTrue(result.errors.contains(message), result.errors)
        }
        let postgres = folder.appendingPathComponent("postgres.json")
        try #"{ "storage": { "kind": "postgres", "url": "postgresql://x@127.0.0.1:1/y" }, "lists": {} }"#
            .write(to: postgres, atomically: true, encoding: .utf8)
        let refused = try ChildProcess.run(ServerProcess.executable, ["backup", "--to", "x", "--config", postgres.path])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.errors.contains("keeps records in PostgreSQL"), refused.errors)
    }
}
