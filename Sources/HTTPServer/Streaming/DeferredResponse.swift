import CMicroHTTPD
import Locking

/// An answer that another thread completes later, e.g. a write done by a single writer thread.
///
/// The handler returns `Response(deferred:)` at once; the server suspends the connection in
/// libmicrohttpd (its thread goes on serving others) until ``complete(_:)`` resumes it, then
/// sends the completed answer. Completing before the server has suspended is fine: the answer
/// is then sent straight away.
public final class DeferredResponse: Sendable {
    private struct State {
        var response: Response?
        var connection: UInt?
        var suspended = false
        /// Set by ``abandon()``: the connection is never suspended again.
        var abandoned = false
        var then: (@Sendable (Response) -> Void)?
    }

    private let state = Locked(State())

    public init() {}

    /// Completes the answer (once; later calls are ignored).
    public func complete(_ response: Response) {
        let then = state.withLock { state -> (@Sendable (Response) -> Void)? in
            guard state.response == nil else { return nil }
            state.response = response
            if state.suspended, let address = state.connection {
                state.suspended = false
                MHD_resume_connection(OpaquePointer(bitPattern: address))
            }
            defer { state.then = nil }
            return state.then
        }
        then?(response)
    }

    /// A deferred answer completed with `transform` applied to this one's (for middleware).
    public func map(_ transform: @escaping @Sendable (Response) -> Response) -> DeferredResponse {
        let next = DeferredResponse()
        let done = state.withLock { state -> Response? in
            if state.response == nil { state.then = { next.complete(transform($0)) } }
            return state.response
        }
        if let done { next.complete(transform(done)) }
        return next
    }

    // MARK: - Called by the server on its thread

    /// The answer if complete; otherwise suspends `connection` until it is, and returns nil.
    func takeOrSuspend(_ connection: OpaquePointer) -> Response? {
        state.withLock { state -> Response? in
            if let response = state.response { return response }
            if state.abandoned { return nil }
            state.connection = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
            state.suspended = true
            MHD_suspend_connection(connection)
            return nil
        }
    }

    /// Gives up on the answer at a stop: resumes the suspended connection so libmicrohttpd can
    /// close it, and forgets the connection, so a later ``complete(_:)`` touches it no more.
    func abandon() {
        state.withLock { state in
            if state.suspended, let address = state.connection {
                MHD_resume_connection(OpaquePointer(bitPattern: address))
            }
            state.suspended = false
            state.connection = nil
            state.abandoned = true
        }
    }

    /// The answer, once complete.
    var completed: Response? { state.withLock { $0.response } }
}
