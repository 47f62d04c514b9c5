import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// The answer to `request`; cancelling the task that awaits it cancels the request, which then
    /// throws `CancellationError` at once (a task cancelled before it starts sends nothing).
    /// Throws what the session throws otherwise (`URLError`).
    func answer(to request: URLRequest) async throws -> (Data, URLResponse) {
        let cancellation = RequestCancellation()
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let task = dataTask(with: request) { data, response, error in
                        if let error { continuation.resume(throwing: error) }
                        else if let response { continuation.resume(returning: (data ?? Data(), response)) }
                        else { continuation.resume(throwing: URLError(.badServerResponse)) }
                    }
                    if !cancellation.start(task) { continuation.resume(throwing: CancellationError()) }
                }
            } onCancel: {
                cancellation.cancel()
            }
        } catch where Task.isCancelled {
            throw CancellationError()
        }
    }
}

/// The data task of one request, for the cancellation handler that may run before it exists.
private final class RequestCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    /// Starts `task` and keeps it to cancel; `false` (not started) when cancelled already.
    func start(_ task: URLSessionDataTask) -> Bool {
        lock.withLock {
            guard !cancelled else { return false }
            self.task = task
            task.resume()
            return true
        }
    }

    /// Cancels the task when it has started, else keeps it from starting.
    func cancel() {
        let task = lock.withLock {
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}
