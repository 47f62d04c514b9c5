import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL cluster of a test's own, made as `scripts/with-postgres.sh` makes the suite's
/// (Debian's `initdb` and `pg_ctl`, as the `postgres` user when the tests run as root, a Unix
/// socket in a temporary folder), that the test may stop and start again.
///
/// Why not stop the suite's cluster instead: every other PostgreSQL test shares it, so a test
/// that failed between a stop and its start would fail all of them; and a cluster of one's own
/// keeps the same URL across restarts with nothing exported from the script. The cost is one
/// `initdb` (about a second).
public final class PostgresCluster {
    public let url: String
    private let folder: URL
    private let bin: URL
    private let data: String
    private let port: Int
    private let asOwner: [String]

    /// Makes and starts the cluster; throws (the test fails, it never skips) without the binaries.
    public init() throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.sorted(by: { $0.compare($1, options: .numeric) == .orderedAscending }).last,
              FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\(version)/bin/initdb") else {
            throw PostgresTestDatabaseError(message: "no PostgreSQL server binaries under /usr/lib/postgresql (install the postgresql package)")
        }
        bin = URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sectional-pgc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if getuid() == 0 {
            try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: folder.path)
            asOwner = ["-u", "postgres", "--"]
        } else {
            asOwner = []
        }
        data = folder.appendingPathComponent("data").path
        port = Int.random(in: 20_000..<60_000)
        url = "postgresql://postgres@localhost:\(port)/postgres?host=\(folder.path)"
        try run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8"])
        try start()
    }

    deinit {
        _ = try? run("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w", "-t", "30"])
        try? FileManager.default.removeItem(at: folder)
    }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
        try run("pg_ctl", ["start", "-D", data, "-w", "-t", "60", "-l", folder.appendingPathComponent("server.log").path,
                           "-o", "-c listen_addresses='' -k \(folder.path) -p \(port) -c fsync=off -c max_connections=100"])
    }

    /// Stops the server at once, as a crash would (`-m immediate`: no shutdown checkpoint,
    /// connections cut), and waits until it is down.
    public func stop() throws {
        try run("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w", "-t", "30"])
    }

    /// Runs a tool to its end. Not with Foundation's `Process`: it learns that a child ended
    /// through a socket the child inherits, and the server `pg_ctl start` leaves running inherits
    /// it too, so the start would never seem to end. `posix_spawn` and `waitpid` instead, the
    /// tool's output in a file of the folder.
    private func run(_ tool: String, _ arguments: [String]) throws {
        let path = bin.appendingPathComponent(tool).path
        let argv = asOwner.isEmpty ? [path] + arguments : ["/usr/sbin/runuser"] + asOwner + [path] + arguments
        let output = folder.appendingPathComponent("\(tool).out").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid: pid_t = 0
        let cStrings = argv.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        let status = (cStrings + [nil]).withUnsafeBufferPointer { buffer in
            posix_spawn(&pid, argv[0], &actions, nil, UnsafeMutablePointer(mutating: buffer.baseAddress!), environ)
        }
        guard status == 0 else { throw PostgresTestDatabaseError(message: "cannot run \(tool): error \(status)") }
        var exit: Int32 = 0
        while waitpid(pid, &exit, 0) < 0 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        guard exit & 0x7F == 0, (exit >> 8) & 0xFF == 0 else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw PostgresTestDatabaseError(message: "\(tool) \(arguments.joined(separator: " ")) failed (status \(exit)): \(text)")
        }
    }
}
