import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's `nginx` run in the foreground as one process (`daemon off; master_process off`) with
/// a configuration made from the deployment's `nginx.conf` by ``localConfiguration(from:port:upstreams:)``,
/// in a temporary prefix folder that holds its config, pid file, temporary files and logs. It is
/// stopped by ``stop()`` and, failing that, killed when released, so no nginx outlives its test.
public final class NginxProcess {
    /// Debian's nginx binary (package `nginx`).
    public static let executable = URL(fileURLWithPath: "/usr/sbin/nginx")

    /// The loopback port nginx listens on.
    public let port: Int
    /// The prefix folder: `nginx.conf`, `nginx.pid`, `temp/`, `nginx.log` (its stdout and stderr).
    public let prefix: URL

    /// Writes `configuration` (with `{{PORT}}` standing for the listening port) into a new
    /// prefix folder and starts nginx; returns once it accepts connections. A port taken between
    /// choosing and binding it is retried with another.
    public init(configuration: (Int) -> String) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw HTTPTestClient.Failure(description: "\(Self.executable.path) is missing: install Debian's nginx package (make test does)")
        }
        prefix = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("temp"), withIntermediateDirectories: true)
        var lastLog = ""
        for _ in 0..<3 {
            let port = try Self.freePort()
            let config = prefix.appendingPathComponent("nginx.conf")
            try configuration(port).write(to: config, atomically: true, encoding: .utf8)
            let log = prefix.appendingPathComponent("nginx.log")
            guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
                throw HTTPTestClient.Failure(description: "cannot create \(log.path)")
            }
            let output = try FileHandle(forWritingTo: log)
            let process = Process()
            process.executableURL = Self.executable
            process.arguments = ["-p", prefix.path + "/", "-c", config.path, "-e", "stderr",
                                 "-g", "daemon off; master_process off; pid \(prefix.path)/nginx.pid;"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let up = eventually(within: 15) { !process.isRunning || (try? HTTPTestClient(port: port)) != nil }
            try? output.close()
            lastLog = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if up && process.isRunning {
                self.port = port
                self.processHolder = process
                return
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
            guard lastLog.contains("Address already in use") else { break }
        }
        try? FileManager.default.removeItem(at: prefix)
        throw HTTPTestClient.Failure(description: "nginx did not start: \(lastLog)")
    }

    private var processHolder: Process?

    deinit { stop() }

    /// Stops nginx (SIGTERM: a fast stop; SIGKILL after 5 s) and removes its prefix folder.
    public func stop() {
        if let process = processHolder {
            if process.isRunning {
                kill(process.processIdentifier, SIGTERM)
                if !eventually(within: 5, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
            }
            processHolder = nil
        }
        try? FileManager.default.removeItem(at: prefix)
    }

    /// Whether nginx is still running.
    public var isRunning: Bool { processHolder?.isRunning ?? false }

    /// What nginx wrote so far: its error log (stderr) and access log (stdout).
    public var log: String { (try? String(contentsOf: prefix.appendingPathComponent("nginx.log"), encoding: .utf8)) ?? "" }

    /// The deployment's `nginx.conf` made to run here: its `listen` on 127.0.0.1:`port`, its
    /// upstream `server` lines (in order) pointing at the loopback `upstreams`, temporary files
    /// under the prefix, and the instance that answered in a `Sectional-Upstream` header. Throws
    /// when the file does not have exactly one `listen` and as many upstream servers as given.
    public static func localConfiguration(from text: String, port: Int, upstreams: [Int]) throws -> String {
        var lines: [String] = []
        var listens = 0, servers = 0
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let indent = String(line.prefix { $0 == " " })
            if trimmed.hasPrefix("listen ") {
                listens += 1
                lines.append(indent + "listen 127.0.0.1:\(port);")
                lines.append(indent + "add_header Sectional-Upstream $upstream_addr always;")
            } else if trimmed.hasPrefix("server "), !trimmed.hasPrefix("server {"), !trimmed.hasPrefix("server_") {
                let words = trimmed.dropLast().split(separator: " ")  // "server host:port options…;"
                guard servers < upstreams.count, words.count >= 2 else {
                    throw HTTPTestClient.Failure(description: "nginx.conf has more upstream servers than \(upstreams.count): \(line)")
                }
                lines.append(indent + (["server", "127.0.0.1:\(upstreams[servers])"] + words.dropFirst(2)).joined(separator: " ") + ";")
                servers += 1
            } else if trimmed == "http {" {
                lines.append(line)
                for kind in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"] {
                    lines.append("    \(kind)_temp_path temp/\(kind);")
                }
            } else {
                lines.append(line)
            }
        }
        guard listens == 1, servers == upstreams.count else {
            throw HTTPTestClient.Failure(description: "nginx.conf should have one listen and \(upstreams.count) upstream servers; found \(listens) and \(servers)")
        }
        return lines.joined(separator: "\n")
    }

    /// A loopback port that was free a moment ago.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPTestClient.Failure(description: "socket failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw HTTPTestClient.Failure(description: "bind to 127.0.0.1:0 failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
