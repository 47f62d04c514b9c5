import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// Per-request state kept between libmicrohttpd's calls of the access handler.
///
/// Created when the request line arrives (URI log callback), retained through `*con_cls`,
/// released when libmicrohttpd reports the request completed.
final class Exchange {
    /// The request target: as sent, then in origin form once the head has been checked.
    var target: String
    let startNanos: UInt64
    var method = HTTPMethod.get
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    /// Set once the first handler call has looked at the request head.
    var started = false
    /// Set when the body passed the size limit; the rest of it is dropped.
    var tooLarge = false
    /// Set once an answer has been queued.
    var answered = false
    var route = ""
    /// Set while the answer is being completed on another thread (connection suspended).
    var deferred: DeferredResponse?
    var status = HTTPStatus.unanswered
    var bytes = 0
    /// The stream the answer sends, if any: how much it sent is known when the request completes.
    var stream: StreamBody?
    /// The connection's watch (``RequestDeadlines``), looked up once the head has arrived; the
    /// connection holds it until it closes, after this request completes.
    var watch: Unmanaged<ConnectionWatch>?

    /// Tells the connection's watch that this request moved on to `phase`.
    @inline(__always)
    func enter(_ phase: RequestDeadlines.Phase) { watch?._withUnsafeGuaranteedRef { $0.enter(phase) } }

    /// Tells the connection's watch that this request completed.
    @inline(__always)
    func completed() { watch?._withUnsafeGuaranteedRef { $0.completed() } }

    init(rawURI: String) {
        self.target = rawURI
        self.startNanos = Clock.nanoseconds()
    }
}

/// Keeps a response body alive until libmicrohttpd has sent it, then releases it.
final class ResponseBody {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

enum Clock {
    /// A monotonic clock in nanoseconds.
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
