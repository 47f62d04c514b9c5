import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real `sectional` executable, started as a child process on port 0 for tests that need a
/// separate process: restarts, `kill -9`, signals.
public final class ServerProcess: @unchecked Sendable {
    public let process = Process()
    public private(set) var port = 0
    private let errors = Pipe()
    private let lock = NSLock()
    private var logText = ""
    private var logEnded = false
    private var closeLogRequested = false

    /// The built `sectional` next to the test bundle.
    public static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sectional")
    }

    /// Starts `sectional serve --port 0 <arguments>` and waits (up to 30 s) for its listening line;
    /// with a `launcher` (such as `["/usr/bin/taskset", "-c", "0"]`), through that command.
    public init(arguments: [String], environment: [String: String] = [:], launcher: [String] = []) throws {
        let command = launcher + [Self.executable.path, "serve", "--port", "0"] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        var env = ChildProcess.inheritedEnvironment
        env.merge(environment) { $1 }
        process.environment = env
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        // A thread of its own reads stderr to its end: `readabilityHandler` was seen not to report
        // the end of file within 5 s of the process's exit on a loaded machine.
        let reading = errors.fileHandleForReading
        let reader = Thread { [weak self] in
            while true {
                let data = reading.availableData
                guard let self else { return }
                self.lock.lock()
                defer { self.lock.unlock() }
                if data.isEmpty {  // end of file: the process closed stderr
                    self.logEnded = true
                    return
                }
                self.logText += String(decoding: data, as: UTF8.self)
                if self.closeLogRequested {  // see closeLog()
                    try? reading.close()
                    self.logEnded = true
                    return
                }
            }
        }
        reader.name = "server-log"
        try process.run()
        reader.start()
        let found = eventually(within: 30) { self.listeningPort() != nil || !self.process.isRunning }
        guard found, let port = listeningPort() else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw HTTPTestClient.Failure(description: "server did not start: \(log)")
        }
        self.port = port
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Everything the server wrote to stderr so far.
    public var log: String {
        lock.lock()
        defer { lock.unlock() }
        return logText
    }

    /// Stops reading the server's stderr: the pipe's read end is closed once the server next
    /// writes to it, so its later log lines meet a closed pipe (as when `| tee` or a log shipper
    /// goes away). ``logClosed`` tells when that has happened.
    public func closeLog() { lock.withLock { closeLogRequested = true } }

    /// Whether the read end of the server's stderr is closed (after ``closeLog()``).
    public var logClosed: Bool { lock.withLock { closeLogRequested && logEnded } }

    /// Sends a signal (SIGTERM, SIGKILL, …).
    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the process to end and for its last log lines to arrive (end of file on
    /// stderr); returns its exit status, or nil on time-out (after killing it, so a hung server
    /// never outlives its test).
    public func waitForExit(within seconds: Double = 15) -> Int32? {
        guard eventually(within: seconds, { !self.process.isRunning }) else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        _ = eventually(within: 5) { self.lock.withLock { self.logEnded } }
        return process.terminationStatus
    }

    /// Waits (up to `seconds`) until `GET /readyz` answers 200 on a new connection.
    public func waitUntilReady(within seconds: Double = 30) -> Bool {
        eventually(within: seconds) { (try? HTTPTestClient(port: self.port).request("GET", "/readyz").status) == 200 }
    }

    private func listeningPort() -> Int? {
        guard let range = log.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else { return nil }
        return Int(log[range].split(separator: ":").last ?? "")
    }
}
