import Dispatch
import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to its end with a deadline, so a regression that hangs fails the test instead
/// of hanging the suite: past `timeout` seconds the child is killed (SIGKILL) and this throws.
public enum ChildProcess {
    public struct Result: Sendable {
        public let status: Int32
        public let output: String
        public let errors: String
    }

    /// The server's own settings a shell may hold (`export SECTIONAL_DATABASE_URL=…`, as the
    /// README's several-instances section has it); a test sets what it needs in `environment`.
    public static let serverSettings: Set<String> = ["SECTIONAL_HOST", "SECTIONAL_PORT", "SECTIONAL_DATA", "SECTIONAL_DATABASE_URL",
                                                     "SECTIONAL_CONFIG", "SECTIONAL_API_TOKEN", "SECTIONAL_LOG_LEVEL"]

    /// The test process's environment without ``serverSettings``: a server or command a test
    /// starts reads only the store, token and log level the test gives it (one with
    /// `SECTIONAL_DATA` from the shell wrote into that file, one with `SECTIONAL_LOG_LEVEL=warn`
    /// never said where it listened).
    public static var inheritedEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter { !serverSettings.contains($0.key) }
    }

    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                           timeout: Double = 30) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = inheritedEnvironment
        env.merge(environment) { $1 }
        process.environment = env
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let collected = Locked<[Int: Data]>([:])
        let readers = DispatchGroup()
        for (index, pipe) in [output, errors].enumerated() {
            let handle = pipe.fileHandleForReading
            DispatchQueue.global().async(group: readers) {
                let data = handle.readDataToEndOfFile()
                collected.withLock { $0[index] = data }
            }
        }
        try process.run()
        let ended = eventually(within: timeout) { !process.isRunning }
        if !ended {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        _ = readers.wait(timeout: .now() + 5)
        let texts = collected.withLock { state in (0...1).map { String(decoding: state[$0] ?? Data(), as: UTF8.self) } }
        guard ended else {
            throw HTTPTestClient.Failure(description: "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) ran over \(timeout) s and was killed; stderr: \(texts[1])")
        }
        return Result(status: process.terminationStatus, output: texts[0], errors: texts[1])
    }
}
