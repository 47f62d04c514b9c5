import CMicroHTTPD
import Locking

/// An answer that another thread completes later, e.g. a write done by a single writer thread.
///
/// The handler returns `Response(deferred:)` at once; the server suspends the connection in
/// libmicrohttpd (its thread goes on serving others) until ``complete(_:)`` resumes it, then
/// sends the completed answer. Completing before the server has suspended is fine: the answer
/// is then sent straight away. ``complete(building:)`` resumes the connection with an answer
/// still to be made, which the server's thread then makes: for work that waited for an event
/// and should not run on the thread that signalled it.
public final class DeferredResponse: Sendable {
    /// How the answer was completed.
    private enum Completion: Sendable {
        case response(Response)
        /// Made on the server's thread when it takes the answer.
        case building(@Sendable () -> Response)
    }

    private struct State {
        var completion: Completion?
        var connection: UInt?
        var suspended = false
        /// Set by ``abandon()``: the connection is never suspended again.
        var abandoned = false
        /// Set by ``map(_:)``: passes the completion on.
        var then: (@Sendable (Completion) -> Void)?

        /// Records `completion` unless completed before, and resumes the connection; returns what
        /// ``map(_:)`` asked to pass it on to.
        mutating func complete(_ completion: Completion) -> (@Sendable (Completion) -> Void)? {
            guard self.completion == nil else { return nil }
            self.completion = completion
            if suspended, let address = connection {
                suspended = false
                MHD_resume_connection(OpaquePointer(bitPattern: address))
            }
            defer { then = nil }
            return then
        }
    }

    private let state = Locked(State())

    public init() {}

    /// Completes the answer (once; later calls are ignored).
    public func complete(_ response: Response) { complete(.response(response)) }

    /// Completes the answer with the one `make` returns, called on the server's thread that
    /// sends it rather than on the caller's (once; later completions are ignored).
    public func complete(building make: @escaping @Sendable () -> Response) { complete(.building(make)) }

    private func complete(_ completion: Completion) {
        state.withLock { $0.complete(completion) }?(completion)
    }

    /// A deferred answer completed with `transform` applied to this one's (for middleware).
    /// `transform` runs on the server's thread that takes the answer, never on the thread that
    /// completes it: that is often the single writer, which every other write waits for, and a
    /// middleware's work (compressing a large answer takes milliseconds) is not to hold it.
    public func map(_ transform: @escaping @Sendable (Response) -> Response) -> DeferredResponse {
        let next = DeferredResponse()
        let pass: @Sendable (Completion) -> Void = { completion in
            switch completion {
            case .response(let response): next.complete(building: { transform(response) })
            case .building(let make): next.complete(building: { transform(make()) })
            }
        }
        let done = state.withLock { state -> Completion? in
            if state.completion == nil { state.then = pass }
            return state.completion
        }
        if let done { pass(done) }
        return next
    }

    // MARK: - Called by the server on its thread

    /// The answer if complete; otherwise suspends `connection` until it is, and returns nil.
    func takeOrSuspend(_ connection: OpaquePointer) -> Response? {
        let done = state.withLock { state -> Completion? in
            if let completion = state.completion { return completion }
            if state.abandoned { return nil }
            state.connection = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
            state.suspended = true
            MHD_suspend_connection(connection)
            return nil
        }
        return done.map(Self.answer)
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

    /// The answer, once complete (one left to build is made now, on the calling thread: the
    /// server calls this once, when it takes the answer).
    var completed: Response? { state.withLock { $0.completion }.map(Self.answer) }

    private static func answer(_ completion: Completion) -> Response {
        switch completion {
        case .response(let response): response
        case .building(let make): make()
        }
    }
}
