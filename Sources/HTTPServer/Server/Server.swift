import CMicroHTTPD
import Locking
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Answers one request. Runs synchronously on a server thread; may set ``Request/route`` for logs.
public typealias Responder = @Sendable (inout Request) -> Response

/// An HTTP/1.1 server over libmicrohttpd: a thread pool with epoll, keep-alive, body limits,
/// idle timeouts and a graceful stop. Connections are accepted by a ``Listener`` of its own and
/// handed to libmicrohttpd (see there why).
///
/// Handlers run synchronously on libmicrohttpd's threads; there is no hop into Swift concurrency
/// on the request path. The answer is queued on the handler's second call, never the first, so
/// libmicrohttpd keeps connections alive (answering on the first call makes it send
/// `Connection: close`: measured here 20k req/s against 90k with keep-alive).
///
/// Why `@unchecked Sendable` is safe: `daemon`, `listener`, `logger`, `watchdog` and `port` are
/// written only by ``start()`` (before libmicrohttpd's threads exist), ``stopAccepting()`` and
/// ``stop(gracePeriod:)`` (after `MHD_stop_daemon` has joined them), which the owner calls from
/// one thread in order; the handler threads read only `let`s and the `Locked`/`Atomic` members.
public final class Server: @unchecked Sendable {
    public let configuration: ServerConfiguration
    private let responder: Responder
    private let onCompleted: (@Sendable (CompletedRequest) -> Void)?
    private let onLibraryMessage: (@Sendable (String) -> Void)?
    private let beforeContinue: (@Sendable (Request) -> Response?)?
    private let decorateEarly: (@Sendable (Request, inout Response) -> Void)?
    private var daemon: OpaquePointer?
    /// Accepts connections until ``stopAccepting()``.
    private var listener: Listener?
    /// Where libmicrohttpd sends its messages; allocated on start, freed once the daemon is gone.
    private var logger: UnsafeMutablePointer<sectional_mhd_logger>?
    private let inFlight = Atomic<Int>(0)
    /// Streams being sent, so a stop can end them (libmicrohttpd must not stop with suspended connections).
    private let streams = Locked<[ObjectIdentifier: StreamBody]>([:])
    /// Answers being completed on another thread, their connections suspended: a stop whose grace
    /// period runs out resumes them, since libmicrohttpd aborts the process when stopped with
    /// suspended connections.
    private let deferreds = Locked<[ObjectIdentifier: DeferredResponse]>([:])
    /// Set when a stop begins: a stream queued from then on (a kept-alive connection may still
    /// ask for one while the stop waits) is ended after its first bytes, as the open ones are.
    private let endingStreams = Atomic<Bool>(false)
    /// Set when a graceful stop begins: answers from then on close their connections.
    private let draining = Atomic<Bool>(false)
    /// Set when a stop's grace period has run out: an answer deferred from then on is abandoned
    /// at once, so no connection is suspended when libmicrohttpd stops.
    private let abandoningAnswers = Atomic<Bool>(false)
    let gate: ConnectionGate
    /// Keeps each worker on a core of its own; nil when that does not apply.
    let pinning: ThreadPinning?
    private var watchdog: StreamWatchdog?
    /// Closes connections whose request arrives too slowly.
    let deadlines: RequestDeadlines

    /// The bound port (after ``start()``), useful when the configuration asked for port 0.
    public private(set) var port: Int = 0

    /// - Parameters:
    ///   - responder: answers each complete request, e.g. `{ router.respond(to: &$0) }`.
    ///   - onCompleted: told about every finished request (after its answer was sent or abandoned).
    ///   - onLibraryMessage: told libmicrohttpd's own messages (otherwise they are dropped).
    ///   - beforeContinue: sees the head of a request whose client waits for `100 Continue`
    ///     before sending its body; an answer returned here (e.g. `401`) is sent instead of
    ///     `100 Continue`, the body is never read and the connection closes.
    ///   - decorateEarly: finishes the answers the server makes itself, before `responder` sees
    ///     the request (a malformed head's `400`, `501`, a body over the limit's `413`), as the
    ///     responder's own are finished (CORS and cache fields), so a browser script reads them.
    public init(configuration: ServerConfiguration, onCompleted: (@Sendable (CompletedRequest) -> Void)? = nil,
                onLibraryMessage: (@Sendable (String) -> Void)? = nil,
                beforeContinue: (@Sendable (Request) -> Response?)? = nil,
                decorateEarly: (@Sendable (Request, inout Response) -> Void)? = nil,
                responder: @escaping Responder) {
        self.configuration = configuration
        self.responder = responder
        self.onCompleted = onCompleted
        self.onLibraryMessage = onLibraryMessage
        self.beforeContinue = beforeContinue
        self.decorateEarly = decorateEarly
        self.gate = ConnectionGate(limit: configuration.connectionLimit, perClient: configuration.perClientConnectionLimit)
        self.pinning = configuration.pinThreads ? ThreadPinning(threads: configuration.workerThreads, cores: System.allowedCPUs()) : nil
        self.deadlines = RequestDeadlines(headSeconds: 2 * configuration.connectionTimeoutSeconds,
                                          requestSeconds: 10 * configuration.connectionTimeoutSeconds)
    }

    deinit {
        watchdog?.stop()
        deadlines.stop()
        listener?.close()
        if let daemon { MHD_stop_daemon(daemon) }
        logger?.deallocate()
    }

    /// Binds and starts serving. Throws ``ServerStartError`` when the address cannot be bound.
    public func start() throws {
        let address = try SocketAddress(host: configuration.host, port: configuration.port)
        let listener: Listener
        do {
            listener = try Listener(address: address)
        } catch let error as ServerStartError {
            throw ServerStartError(description: "cannot listen on \(configuration.host):\(configuration.port) (\(error.description))")
        }
        // `MHD_USE_ITC` lets `MHD_add_connection` wake the worker it hands a connection to.
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ITC.rawValue
            | MHD_USE_ERROR_LOG.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        let threads = configuration.workerThreads
        let me = Unmanaged.passUnretained(self).toOpaque()
        let logger = self.logger ?? UnsafeMutablePointer<sectional_mhd_logger>.allocate(capacity: 1)
        logger.initialize(to: sectional_mhd_logger(callback: messageHandler, cls: me))
        self.logger = logger
        // The gate enforces the connection limits; libmicrohttpd's own limit (split between its
        // threads) is set so that no thread ever reaches it first.
        guard let started = sectional_mhd_start(flags, accessHandler, me, completedHandler, me, uriLogger, me,
                                                UInt32(threads), UInt32(configuration.connectionLimit * threads),
                                                UInt32(configuration.connectionTimeoutSeconds),
                                                configuration.connectionMemoryBytes,
                                                acceptPolicy, me, connectionNotice, me, logger) else {
            throw ServerStartError(description: "libmicrohttpd could not start (see its message above)")
        }
        daemon = started
        // libmicrohttpd owns each socket from here, and closes it when it refuses the connection.
        nonisolated(unsafe) let handOver = started
        listener.start { socket, peer, length in _ = MHD_add_connection(handOver, socket, peer, length) }
        self.listener = listener
        port = listener.port
        watchdog = StreamWatchdog { [weak self] in self?.streams.withLock { Array($0.values) } ?? [] }
    }

    /// Whether each worker thread is kept on a core of its own (``ServerConfiguration/pinThreads``,
    /// when it applies).
    public var pinsThreads: Bool { pinning != nil }

    /// Requests that have arrived and not yet completed.
    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// Streams currently being sent.
    public var openStreams: Int { streams.withLock { $0.count } }

    /// Open connections, connections refused by the limits and connections closed because a
    /// request came too slowly.
    public var connections: ConnectionStatistics {
        var statistics = gate.statistics
        statistics.closedTooSlow = deadlines.closed
        return statistics
    }

    /// Stops accepting connections: the listening socket closes, so new ones are refused by the
    /// kernel; requests under way and open connections go on. Idempotent.
    public func stopAccepting() {
        listener?.close()
        listener = nil
    }

    /// Stops gracefully: stops accepting connections, ends open streams (and any asked for on a
    /// kept-alive connection meanwhile), lets in-flight requests finish for at most `gracePeriod`
    /// seconds, then closes every connection and frees the daemon.
    ///
    /// libmicrohttpd aborts the process when stopped with a suspended connection, so none is left:
    /// each flag is set before its sweep, under the lock a new stream or answer is filed with, so
    /// one filed after the sweep sees the flag and ends (or is abandoned) by itself.
    public func stop(gracePeriod: Double = 10) {
        guard let daemon else { return }
        draining.store(true, ordering: .releasing)
        stopAccepting()
        watchdog?.stop()
        watchdog = nil
        deadlines.stop()
        endingStreams.store(true, ordering: .releasing)
        streams.withLock { $0.values.forEach { $0.close() } }
        let deadline = Clock.nanoseconds() + UInt64(gracePeriod * 1e9)
        while (inFlight.load(ordering: .acquiring) > 0 || openStreams > 0) && Clock.nanoseconds() < deadline {
            usleep(5_000)
        }
        // Answers still pending after the grace period are abandoned: their connections are
        // resumed (to be closed by the stop) and a later completion touches them no more. A
        // closed stream never suspends again, and one suspended is resumed by its close.
        abandoningAnswers.store(true, ordering: .releasing)
        deferreds.withLock { $0.values.forEach { $0.abandon() } }
        streams.withLock { $0.values.forEach { $0.close() } }
        MHD_stop_daemon(daemon)
        self.daemon = nil
    }

    // MARK: - libmicrohttpd callbacks (through the C trampolines in ServerCallbacks.swift)

    func begin(uri: UnsafePointer<CChar>) -> UnsafeMutableRawPointer {
        // Not yet in flight: a request counts once its head has arrived, so a half-sent head
        // cannot hold up a graceful stop.
        let exchange = Exchange(rawURI: String(cString: uri))
        Self.hideQuery(uri)
        return Unmanaged.passRetained(exchange).toOpaque()
    }

    func access(_ connection: OpaquePointer, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>?,
                upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let raw = context.pointee else { return MHD_Result.NO }
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeUnretainedValue()
        if exchange.answered {
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if !exchange.started {
            // First call: only the head has arrived. Answer on a later call to keep the connection alive.
            exchange.started = true
            exchange.watch = watch(of: connection)
            exchange.enter(.awaitingBody)
            inFlight.add(1, ordering: .relaxed)
            exchange.method = HTTPMethod(cString: method)
            let fields: RequestFraming.Fields
            (exchange.headers, fields) = Self.headers(of: connection)
            if let problem = headProblem(connection, method: method, version: version, fields: fields, exchange: exchange) {
                return queue(early(problem, exchange), on: connection, for: exchange)
            }
            exchange.target = RequestFraming.originForm(exchange.target)
            // A declared length over the limit is answered at once; the body is never read.
            if let length = fields.contentLength, length > configuration.maxBodyBytes {
                return queue(early(HTTPError.bodyTooLarge(limit: configuration.maxBodyBytes).response, exchange), on: connection, for: exchange)
            }
            // Decided before libmicrohttpd sends `100 Continue`, which it does when this call queues nothing.
            if let beforeContinue, exchange.headers["Expect"] != nil,
               var early = beforeContinue(Request(method: exchange.method, uri: exchange.target, headers: exchange.headers)) {
                early.headers.set("Connection", "close")
                exchange.enter(.received)
                return queue(early, on: connection, for: exchange)
            }
            return MHD_Result.YES
        }
        let size = uploadSize.pointee
        if size > 0 {
            // libmicrohttpd 0.9.75 cannot queue an answer while a body is arriving, so a chunked
            // body that passes the limit is dropped as it arrives and answered 413 at its end.
            uploadSize.pointee = 0
            if exchange.tooLarge || exchange.body.count + size > configuration.maxBodyBytes {
                exchange.tooLarge = true
                exchange.body = []
            } else {
                exchange.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: size))
            }
            return MHD_Result.YES
        }
        exchange.enter(.received)
        if exchange.tooLarge {
            return queue(early(HTTPError.bodyTooLarge(limit: configuration.maxBodyBytes).response, exchange), on: connection, for: exchange)
        }
        if let deferred = exchange.deferred {
            // Called again after a resume: the answer is ready.
            guard let response = deferred.completed else { return MHD_Result.YES }
            exchange.deferred = nil
            deferreds.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(deferred)) }
            return answer(response, on: connection, for: exchange)
        }
        var request = Request(method: exchange.method, uri: exchange.target, headers: exchange.headers, body: exchange.body)
        exchange.body = []
        let response = responder(&request)
        exchange.route = request.route
        return answer(response, on: connection, for: exchange)
    }

    /// Queues `response`; a deferred one is queued once complete, the connection suspended
    /// meanwhile. A deferred answer may complete with another deferred one (a request parked
    /// until a version, whose route then hands a write to the writer): that one is waited for
    /// in the same way.
    private func answer(_ response: Response, on connection: OpaquePointer, for exchange: Exchange) -> MHD_Result {
        guard let deferred = response.deferred else { return queue(response, on: connection, for: exchange) }
        let abandoning = deferreds.withLock { all in
            all[ObjectIdentifier(deferred)] = deferred
            return abandoningAnswers.load(ordering: .acquiring)
        }
        if abandoning { deferred.abandon() }
        if let ready = deferred.takeOrSuspend(connection) {
            deferreds.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(deferred)) }
            return answer(ready, on: connection, for: exchange)
        }
        exchange.deferred = deferred
        return MHD_Result.YES
    }

    func complete(_ connection: OpaquePointer?, _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let raw = context.pointee else { return }
        context.pointee = nil
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeRetainedValue()
        exchange.completed()
        if exchange.started { inFlight.subtract(1, ordering: .releasing) }
        if let deferred = exchange.deferred { deferreds.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(deferred)) } }
        guard let onCompleted else { return }
        var bytes: Int? = exchange.stream?.bytesSent ?? exchange.bytes
        if exchange.status == .unanswered, let connection {
            // libmicrohttpd answered by itself (e.g. 400 for a malformed Content-Length, 431),
            // with a body of its own whose size it does not tell.
            exchange.status = HTTPStatus(code: Int(sectional_mhd_queued_status(connection)))
            if exchange.status != .unanswered { bytes = nil }
        }
        let seconds = Double(Clock.nanoseconds() - exchange.startNanos) / 1e9
        // The method is known once the handler was called (`started`); libmicrohttpd answers a
        // 431 or a malformed Content-Length before that.
        onCompleted(CompletedRequest(method: exchange.started ? exchange.method : nil, target: exchange.target,
                                     route: exchange.route, status: exchange.status, bytes: bytes, durationSeconds: seconds,
                                     rejectedRequestLine: false))
    }

    /// Queues `response`; when libmicrohttpd cannot send it, queues a small problem instead, so
    /// no answer is an empty reply: `400 invalid-request` when the request's head took the room
    /// the answer's header block needs (a few hundred query parameters do), else (a header
    /// libmicrohttpd refuses) `500 internal`. The problem keeps the answer's
    /// `Access-Control-Allow-Origin`, so that a script on another origin reads it as it would
    /// have read the answer.
    ///
    /// A response with a ``ResponseMemo`` is queued as the libmicrohttpd response the memo keeps
    /// for its status, fields and body, built by the first request that sends it.
    private func queue(_ response: Response, on connection: OpaquePointer, for exchange: Exchange,
                       isFallback: Bool = false) -> MHD_Result {
        if draining.load(ordering: .relaxed), response.headers["Connection"] != "close" {
            // A stop is under way: a kept-alive client learns it with this answer and sends its
            // next request elsewhere, rather than have it cut when the grace period ends. (The
            // memo's response is shared by other requests, so this one is built on its own.)
            var closing = response
            closing.memo = nil
            closing.headers.set("Connection", "close")
            return queue(closing, on: connection, for: exchange, isFallback: isFallback)
        }
        let fallback = { [self] (requestTookRoom: Bool) in
            guard !isFallback else { return MHD_Result.NO }
            var problem = (requestTookRoom ? HTTPError.noRoomForAnswer : HTTPError.internalError).response
            if requestTookRoom { problem.headers.set("Connection", "close") }
            if let origin = response.headers["Access-Control-Allow-Origin"] { problem.headers.set("Access-Control-Allow-Origin", origin) }
            return queue(problem, on: connection, for: exchange, isFallback: true)
        }
        if let stream = response.stream, exchange.method == .head {
            // A HEAD answer has no content, but libmicrohttpd ends a streamed one with the last
            // chunk (`0\r\n\r\n`), bytes a kept-alive client would read as the next answer's:
            // the stream's fields go out with an empty body, and the stream ends unread.
            stream.end()
            var fields = response
            fields.stream = nil
            return queue(fields, on: connection, for: exchange, isFallback: isFallback)
        }
        if let stream = response.stream {
            guard let headerBytes = Self.headerBytes(of: response.headers) else {
                stream.end()
                return fallback(false)
            }
            guard fits(headerBytes, on: connection, for: exchange) else {
                stream.end()
                return fallback(fitsAlone(headerBytes))
            }
            answered(response, exchange)
            exchange.stream = stream
            stream.attach(connection)
            let ending = streams.withLock { all in
                all[ObjectIdentifier(stream)] = stream
                return endingStreams.load(ordering: .acquiring)
            }
            if ending { stream.close() }
            let context = Unmanaged.passRetained(StreamContext(stream: stream, server: self)).toOpaque()
            guard let answer = MHD_create_response_from_callback(UInt64.max, 4096, readStream, context, releaseStream),
                  Self.add(response.headers, to: answer) else { return fallback(false) }
            let result = MHD_queue_response(connection, UInt32(response.status.code), answer)
            MHD_destroy_response(answer)
            return result
        }
        let prepared = response.memo?.answer(for: response, build: Self.answer(for:))
            ?? Self.answer(for: response).map { ($0.answer, $0.headerBytes, owned: true) }
        guard let (answer, headerBytes, owned) = prepared else { return fallback(false) }
        // The fallback's few fields are sent on libmicrohttpd's own reckoning: the estimate is
        // cautious, and a head of 15,000 bytes left it no room even for them (an empty reply).
        guard isFallback || fits(headerBytes, on: connection, for: exchange) else {
            if owned { MHD_destroy_response(answer) }
            return fallback(fitsAlone(headerBytes))
        }
        answered(response, exchange)
        let result = MHD_queue_response(connection, UInt32(response.status.code), answer)
        if owned { MHD_destroy_response(answer) }
        return result
    }

    private func answered(_ response: Response, _ exchange: Exchange) {
        exchange.answered = true
        exchange.status = response.status
        exchange.bytes = exchange.method == .head || response.status == .notModified ? 0 : response.body.count
    }

    /// A libmicrohttpd response for `response`'s body and fields, with the bytes its fields take;
    /// nil when a field holds a NUL byte or libmicrohttpd refuses one.
    private static func answer(for response: Response) -> (answer: OpaquePointer, headerBytes: Int)? {
        guard let headerBytes = headerBytes(of: response.headers) else { return nil }
        let answer: OpaquePointer?
        if response.body.isEmpty {
            answer = MHD_create_response_from_buffer(0, nil, MHD_ResponseMemoryMode.RESPMEM_PERSISTENT)
        } else {
            // Hand the Swift array's own storage to libmicrohttpd; the box keeps it alive until sent.
            let box = ResponseBody(response.body)
            let bytes = box.bytes.withUnsafeBufferPointer { UnsafeMutableRawPointer(mutating: $0.baseAddress!) }
            answer = MHD_create_response_from_buffer_with_free_callback_cls(
                box.bytes.count, bytes, releaseBody, Unmanaged.passRetained(box).toOpaque())
        }
        guard let answer, add(response.headers, to: answer) else { return nil }
        return (answer, headerBytes)
    }

    /// Adds `headers` to `answer`; when libmicrohttpd refuses one, destroys `answer` and says false.
    private static func add(_ headers: HTTPHeaders, to answer: OpaquePointer) -> Bool {
        for (name, value) in headers {
            // `withCString` lends a native string's own bytes; passing the strings directly made a
            // C copy of each (`utf8CString`).
            let added = name.withCString { name in value.withCString { MHD_add_response_header(answer, name, $0) } }
            if added == MHD_Result.NO {
                MHD_destroy_response(answer)
                return false
            }
        }
        return true
    }

    func streamEnded(_ stream: StreamBody) {
        streams.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(stream)) }
        stream.end()
    }

    /// Why the head cannot be served (answered at once, closing the connection), or nil.
    private func headProblem(_ connection: OpaquePointer, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>?,
                             fields: RequestFraming.Fields, exchange: Exchange) -> Response? {
        let isHTTP10 = version.map { strcmp($0, "HTTP/1.0") == 0 } ?? false
        var problem = fields.problem(method: exchange.method, isHTTP10: isHTTP10, target: exchange.target)
        if problem == nil, !sectional_mhd_head_is_intact(connection, method) {
            problem = HTTPError(.badRequest, "invalid-request", detail: "A header line is malformed: a NUL byte in a value, a line folded over lines, or a line without a field name.")
        }
        guard var answer = problem?.response else { return nil }
        answer.headers.set("Connection", "close")
        return answer
    }

    /// `response`, an answer the server makes itself, finished by ``decorateEarly``; it ends the
    /// request's deadline (``RequestDeadlines``) as a whole request would.
    private func early(_ response: Response, _ exchange: Exchange) -> Response {
        exchange.enter(.received)
        guard let decorateEarly else { return response }
        var response = response
        decorateEarly(Request(method: exchange.method, uri: exchange.target, headers: exchange.headers), &response)
        return response
    }

    /// The request's header fields, names and values read with their lengths, and what the
    /// framing rules need from them (read over the same bytes).
    private static func headers(of connection: OpaquePointer) -> (HTTPHeaders, RequestFraming.Fields) {
        var reading = (headers: HTTPHeaders(), fields: RequestFraming.Fields())
        reading.headers.reserveCapacity(8)  // one allocation for a usual head, not one per doubling
        withUnsafeMutablePointer(to: &reading) { target in
            _ = MHD_get_connection_values_n(connection, MHD_ValueKind.HEADER_KIND, { cls, _, key, keySize, value, valueSize in
                guard let cls, let key else { return MHD_Result.YES }
                let reading = cls.assumingMemoryBound(to: (headers: HTTPHeaders, fields: RequestFraming.Fields).self)
                let name = UnsafeRawBufferPointer(start: key, count: keySize).assumingMemoryBound(to: UInt8.self)
                // libmicrohttpd drops the whitespace before a value, not after it (RFC 9110 §5.5: neither is part of it).
                var size = value == nil ? 0 : valueSize
                while size > 0, let last = value?[size - 1], last == 0x20 || last == 0x09 { size -= 1 }
                let text = UnsafeRawBufferPointer(start: value, count: size).assumingMemoryBound(to: UInt8.self)
                reading.pointee.fields.read(name: name, value: text, trailingSpace: size < valueSize)
                reading.pointee.headers.add(String(decoding: name, as: UTF8.self), String(decoding: text, as: UTF8.self))
                return MHD_Result.YES
            }, target)
        }
        return reading
    }

    func libraryMessage(_ message: UnsafePointer<CChar>) {
        guard onLibraryMessage != nil || onCompleted != nil else { return }
        var text = String(cString: message)
        while text.last?.isWhitespace == true { text.removeLast() }
        onLibraryMessage?(text)
        // An answer to the request line is told of by this message only (see `requestLineAnswer`).
        if let onCompleted, let status = LibraryMessages.requestLineAnswer(text) {
            onCompleted(CompletedRequest(method: nil, target: "", route: "", status: HTTPStatus(code: status), bytes: nil,
                                         durationSeconds: 0, rejectedRequestLine: true))
        }
    }
}
