/// How a ``Server`` listens and what it tolerates from clients.
public struct ServerConfiguration: Sendable {
    /// Address to bind: an IPv4 or IPv6 literal or a host name (`127.0.0.1`, `::1`, `localhost`, `0.0.0.0`).
    public var host: String
    /// Port to bind; 0 picks a free port, readable afterwards from ``Server/port``.
    public var port: Int
    /// Worker threads; 0 means one per core.
    public var threads: Int
    /// Whether each worker thread is kept on one core when there are at least as many threads as
    /// cores (see ``ThreadPinning``). On by default; turn it off on a host whose cores are
    /// shared with other pinned work.
    public var pinThreads: Bool
    /// Largest request body accepted; larger ones are answered `413 body-too-large` without being read.
    public var maxBodyBytes: Int
    /// Most connections open at once; one more is closed as soon as it is accepted (counted in
    /// ``Server/connections``).
    public var connectionLimit: Int
    /// Most connections open at once from one client address (IPv4 or IPv6, port ignored); one
    /// more is closed as soon as it is accepted. 0 is no limit.
    public var perClientConnectionLimit: Int
    /// Seconds a connection may stay idle before it is closed.
    public var connectionTimeoutSeconds: Int
    /// Memory for one connection's request line and headers (so also the largest request head;
    /// past it libmicrohttpd answers `431` for the header fields, `414` for the target).
    ///
    /// 16 KiB by default, as Node's limit on a request's header block. libmicrohttpd zeroes the
    /// whole of it after every request of a kept-alive connection, so its size is paid per
    /// request: A/B of 16 against 32 KiB, eight alternating 4 s `wrk` rounds of `make bench`'s
    /// scenarios, servers swapped after four: server CPU per request −4.3% on the cached first
    /// page (12.33 against 12.89 µs, means), −2.5% on tag look-ups (12.03 against 12.34); `perf`
    /// put `memset` at 2.5% of the first page's samples at 32 KiB. 8 KiB saved twice as much but
    /// leaves a header block of about 6 KiB, which a large token and a few cookies can exceed.
    public var connectionMemoryBytes: Int

    public init(host: String = "127.0.0.1", port: Int = 8080, threads: Int = 0, pinThreads: Bool = true, maxBodyBytes: Int = 1 << 20,
                connectionLimit: Int = 1000, perClientConnectionLimit: Int = 64, connectionTimeoutSeconds: Int = 30,
                connectionMemoryBytes: Int = 16 << 10) {
        self.host = host
        self.port = port
        self.threads = threads
        self.pinThreads = pinThreads
        self.maxBodyBytes = maxBodyBytes
        self.connectionLimit = connectionLimit
        self.perClientConnectionLimit = perClientConnectionLimit
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.connectionMemoryBytes = connectionMemoryBytes
    }

    /// The worker threads a server starts: ``threads``, or one per core it may use when 0.
    public var workerThreads: Int { threads > 0 ? threads : System.coreCount }
}

/// What the server tells about one finished request, for access logs and metrics.
public struct CompletedRequest: Sendable {
    /// Nil when libmicrohttpd answered the request itself before the server was given its head
    /// (a `431`, a `Content-Length` that is no number, and its answers to the request line):
    /// libmicrohttpd 0.9.75 tells the method only to the handler.
    public let method: HTTPMethod?
    /// The request target as sent (path and query); empty when ``rejectedRequestLine``.
    public let target: String
    /// The path of the target, still percent-encoded.
    public var path: Substring { target.beforeQuery }
    /// The route template that matched, or empty.
    public let route: String
    /// ``HTTPStatus/unanswered`` when the client went away before an answer was queued.
    public let status: HTTPStatus
    /// The answer's body bytes (a stream's: the bytes it handed over); nil for an answer
    /// libmicrohttpd made itself, whose body (an HTML page of its own) its API does not tell.
    public let bytes: Int?
    public let durationSeconds: Double
    /// Whether this is libmicrohttpd's own answer to the request line, a `414` (target too long)
    /// or a `505` (HTTP version): told of by its message alone
    /// (``LibraryMessages/requestLineAnswer(_:)``), so only the status is known (the target is
    /// empty, the duration 0).
    public let rejectedRequestLine: Bool
}

/// Why a server could not start.
public struct ServerStartError: Error, CustomStringConvertible, Sendable {
    public let description: String
}
