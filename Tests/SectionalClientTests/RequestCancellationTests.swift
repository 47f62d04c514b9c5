import Foundation
import SectionalClient
import XCTest

/// Cancelling a task cancels its request: against a server that never answers, a cancelled read
/// and a cancelled mirror operation end at once (`CancellationError`), not when the session's
/// request timeout (60 s) runs out; so does one waiting its turn behind a hung one.
final class RequestCancellationTests: XCTestCase {
    func testCancellingATaskEndsItsRequestAndItsMirrorOperation() async throws {
        let silent = try SilentServer()
        defer { silent.stop() }
        let list = SectionalClient(baseURL: silent.url).list("people")
        try await assertEndsWhenCancelled("outline()", silent) { _ = try await list.outline() }
        let mirror = list.mirror()
        try await assertEndsWhenCancelled("mirror.reload()", silent) { _ = try await mirror.reload() }
        // The cancelled reload holds up no later operation: this one sends its request and ends too.
        try await assertEndsWhenCancelled("mirror.sync() after it", silent) { _ = try await mirror.sync() }
    }

    /// Starts `body` in a task, cancels it once its request has reached `server`, and asserts
    /// that it throws `CancellationError` within 5 s.
    private func assertEndsWhenCancelled(_ what: String, _ server: SilentServer, file: StaticString = #filePath, line: UInt = #line,
                                         _ body: @escaping @Sendable () async throws -> Void) async throws {
        let before = server.requests
        let task = Task { try await body() }
        let sent = Date().addingTimeInterval(10)
        while server.requests == before, Date() < sent { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertGreaterThan(server.requests, before, "\(what) sent its request", file: file, line: line)
        task.cancel()
        await assertCancelled(what, task, file: file, line: line)
    }

    /// An operation queued behind one whose request hangs throws at once when its caller gives
    /// up, and never sends its request (it never ran).
    func testAnOperationWaitingBehindAHungOneEndsAtOnceAndSendsNothing() async throws {
        let silent = try SilentServer()
        defer { silent.stop() }
        let mirror = SectionalClient(baseURL: silent.url).list("people").mirror()
        let hung = Task { try await mirror.reload() }
        defer { hung.cancel() }
        let sent = Date().addingTimeInterval(10)
        while silent.requests == 0, Date() < sent { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertEqual(silent.requests, 1, "the reload sent its request")
        let waiting = Task { _ = try await mirror.sync() }
        waiting.cancel()
        await assertCancelled("mirror.sync() behind a hung reload", waiting)
        XCTAssertEqual(silent.requests, 1, "the cancelled sync sent nothing")
    }

    /// Asserts that `task` throws `CancellationError` within 5 s.
    private func assertCancelled(_ what: String, _ task: Task<Void, Error>, file: StaticString = #filePath, line: UInt = #line) async {
        let cancelled = Date()
        let ended = Task {
            do {
                try await task.value
                return "an answer"
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "\(error)"
            }
        }
        let deadline = Date().addingTimeInterval(5)
        let outcome = TaskOutcome()
        Task { outcome.set(await ended.value) }
        while outcome.value == nil, Date() < deadline { try? await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertEqual(outcome.value, "cancelled",
                       "\(what) still running \(Date().timeIntervalSince(cancelled)) s after it was cancelled", file: file, line: line)
    }
}

/// What a background task ended with, read while polling.
private final class TaskOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var text: String?
    func set(_ value: String) { lock.withLock { text = value } }
    var value: String? { lock.withLock { text } }
}
