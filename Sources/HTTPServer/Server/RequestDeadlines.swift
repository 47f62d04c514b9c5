import Dispatch
import Locking
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Closes connections whose request arrives too slowly ("slowloris"): a request's head must have
/// arrived within `headSeconds` of the connection opening or of its previous answer, and the
/// whole request, body included, within `requestSeconds` of the same moment.
///
/// libmicrohttpd 0.9.75 only times out inactivity, so a client that sends a byte of its head every
/// few seconds would hold its connection for ever, and a few addresses could take every slot.
/// Limits follow Node's `headersTimeout` (60 s) and `requestTimeout` (300 s); the server sets them
/// to 2 and 10 times ``ServerConfiguration/connectionTimeoutSeconds``, which is 30 s by default.
/// The time counted includes the idle time before the request (at most the connection timeout),
/// since libmicrohttpd tells nothing of a request before its request line.
///
/// How: each connection's worker thread records where its request stands (``ConnectionWatch``,
/// three relaxed atomic stores a request); once a second a timer notes when each connection's
/// request began (the first tick that saw it) and shuts down the socket of any that is late.
/// libmicrohttpd then sees the connection closed and cleans up as after a client's hang-up.
/// A connection whose answer is being made or sent is never timed here. The registry's lock is
/// taken when a connection opens or closes and by the sweep, never per request; a watch leaves the
/// registry (under that lock) before libmicrohttpd closes its socket, so a socket number reused
/// by a newer connection is never shut down for an older one.
final class RequestDeadlines: @unchecked Sendable {
    /// Where a connection's current request stands.
    enum Phase: UInt64 {
        /// From the connection's start or its previous answer until the request's head is in.
        case awaitingHead = 0
        /// The head is in; the body is arriving.
        case awaitingBody = 1
        /// The request is in: being answered, or the answer being sent.
        case received = 2
    }

    let headTicks: UInt64
    let requestTicks: UInt64
    private let watches = Locked<[ObjectIdentifier: ConnectionWatch]>([:])
    private let closedCount = Atomic<UInt64>(0)
    /// Sweeps so far; touched only on `queue`.
    private var tick: UInt64 = 0
    private let queue = DispatchQueue(label: "httpserver.request-deadlines")
    /// Set once in `init` (hence `@unchecked`).
    private let timer: DispatchSourceTimer

    /// Starts sweeping once a second.
    init(headSeconds: Int, requestSeconds: Int) {
        headTicks = UInt64(max(1, headSeconds))
        requestTicks = UInt64(max(headSeconds, requestSeconds))
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.sweep() }
        timer.resume()
    }

    /// Connections shut down so far because a request came too slowly.
    var closed: UInt64 { closedCount.load(ordering: .relaxed) }

    /// Starts watching a new connection on `socket`; the caller keeps the watch until ``forget(_:)``.
    func watch(socket: Int32) -> ConnectionWatch {
        let watch = ConnectionWatch(socket: socket)
        watches.withLock { $0[ObjectIdentifier(watch)] = watch }
        return watch
    }

    /// Stops watching a connection; called before libmicrohttpd closes its socket.
    func forget(_ watch: ConnectionWatch) {
        watches.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(watch)) }
    }

    /// Stops the timer; returns once no sweep is running.
    func stop() {
        timer.cancel()
        queue.sync {}
    }

    private func sweep() {
        tick += 1
        let now = tick
        watches.withLock { watches in
            for watch in watches.values where !watch.shut {
                let progress = watch.progress.load(ordering: .relaxed)
                let request = progress >> 2
                if request != watch.seenRequest {
                    watch.seenRequest = request
                    watch.seenSince = now
                    continue
                }
                let age = now - watch.seenSince
                let late = switch Phase(rawValue: progress & 3) {
                case .awaitingHead: age > headTicks
                case .awaitingBody: age > requestTicks
                case .received, nil: false
                }
                guard late else { continue }
                watch.shut = true
                shutdown(watch.socket, Int32(SHUT_RDWR))
                closedCount.add(1, ordering: .relaxed)
            }
        }
    }
}

/// One connection's request progress: written by the connection's worker thread only, read by
/// the sweep. The other fields belong to the sweep (read and written under the registry's lock).
final class ConnectionWatch: @unchecked Sendable {
    let socket: Int32
    /// Requests completed on the connection (high bits) and the current request's ``RequestDeadlines/Phase`` (low two).
    let progress = Atomic<UInt64>(0)
    var seenRequest: UInt64 = .max
    var seenSince: UInt64 = 0
    var shut = false

    init(socket: Int32) { self.socket = socket }

    /// The current request moved on to `phase`.
    @inline(__always)
    func enter(_ phase: RequestDeadlines.Phase) {
        let progress = progress.load(ordering: .relaxed)
        self.progress.store(progress & ~3 | phase.rawValue, ordering: .relaxed)
    }

    /// The current request was answered: the next one starts awaiting its head.
    @inline(__always)
    func completed() {
        let progress = progress.load(ordering: .relaxed)
        self.progress.store(((progress >> 2) + 1) << 2, ordering: .relaxed)
    }
}
