import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTPServer
import ListModel
import ListStore
import Locking

/// The running product: HTTP server, store, lists and views, started and stopped as one.
///
/// `start()` binds first (so `/healthz` and `/readyz` answer at once, `/readyz` with 503), then
/// opens the store, seeds empty collections, builds every list and turns ready. `stop()` turns
/// `/readyz` to 503, stops accepting, lets in-flight requests finish (≤ 10 s) and closes the store.
///
/// Why `@unchecked Sendable` is safe: the mutable members (`server`, `recordStore`, `views`,
/// `events`, `sweeper`, `follower`, `webhooks`, `router`, `readYourWrites`) are written only by `start()` and `stop()`,
/// which the owner calls from one thread, one after the other. Request threads read only `router` and
/// `readYourWrites`, written once before `readiness` turns ready (its release/acquire ordering
/// publishes them), and the `let`s.
public final class SectionalServer: @unchecked Sendable {
    public let configuration: Configuration
    public let readiness = Readiness()
    public let metrics = Metrics()
    /// Store failures met by writes: answers, counts, the fault in force.
    public let storageFaults = StorageFaults()
    /// A reload asked for before the server was ready (a `SIGHUP` while it loads), done once it is.
    let waitingReload = Locked<(path: String, overrides: ConfigurationOverrides)?>(nil)
    let log: Log
    private var server: Server?
    private var recordStore: RecordStore?
    private var views: ViewRegistry?
    private var events: EventHub?
    private var sweeper: DispatchSourceTimer?
    /// Applies other instances' writes (PostgreSQL only).
    private(set) var follower: ChangeFollower?
    /// Sends the webhook outbox's deliveries (when webhooks are configured).
    private var webhooks: WebhookDelivery?
    /// Set once before `readiness` turns ready (published by its release/acquire ordering).
    nonisolated(unsafe) private var router = Router()
    /// Parks reads ahead of this instance's version; set with `router`.
    nonisolated(unsafe) private var readYourWrites: ReadYourWrites?

    private let crossOrigin: CrossOrigin

    /// Seconds since 1970, for view expiry.
    private let clock: @Sendable () -> Int64
    /// How often idle views are swept, in seconds.
    private let sweepSeconds: Double

    /// A server for `configuration`. `clock` and `sweepSeconds` (view expiry's time and sweep
    /// period, by default ``sweepSeconds(viewTTLSeconds:)``) are for tests that move time.
    public init(configuration: Configuration, log: Log,
                clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }, sweepSeconds: Double? = nil) {
        self.configuration = configuration
        self.log = log
        self.clock = clock
        self.sweepSeconds = sweepSeconds ?? Self.sweepSeconds(viewTTLSeconds: configuration.viewTTLSeconds)
        // Read-your-writes: a read may name the version it must reflect, and every write answer names its version.
        self.crossOrigin = CrossOrigin(origins: configuration.corsOrigins, requestHeaders: ["Sectional-Min-Version"],
                                       answerHeaders: ["Sectional-Version"])
    }

    /// The bound port, once started.
    public var port: Int { server?.port ?? 0 }

    /// The lists being served, once ready.
    public private(set) var lists: ViewModelStore?

    /// Every route the server answers, with the names of the guards of its group (empty until started).
    public var routes: [Router.Route] { router.routes }

    /// Refuses an exposed address without a token unless explicitly allowed.
    public static func checkBindSafety(_ configuration: Configuration, allowUnauthenticatedWrites: Bool) throws(ConfigError) {
        let host = configuration.server.host
        if !isLoopback(host) && configuration.apiToken == nil && !allowUnauthenticatedWrites {
            throw ConfigError(path: "server.host", """
                refusing to listen on \(host) with no API token: anyone could write records. \
                Set \(configuration.tokenEnvironmentVariable), or pass --allow-unauthenticated-writes.
                """)
        }
    }

    /// Whether `host` names only this machine: `localhost`, an IPv4 literal in 127.0.0.0/8, or the
    /// IPv6 loopback in any spelling (`::1`, `0:0:0:0:0:0:0:1`). A name that merely starts with
    /// `127.` (`127.example.com`) may resolve to any address, so it is not.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }

    public func start() throws {
        let authenticator = Authenticator(service: BearerAuth(token: configuration.apiToken),
                                          verifier: try configuration.userTokenVerifier())
        let webhookTargets = try configuration.webhookTargets()
        var operations = Router()
        OperationRoutes(readiness: readiness, faults: storageFaults).register(on: &operations)
        let bootRouter = operations
        let server = Server(configuration: configuration.server, onCompleted: { [log, metrics] done in
            metrics.record(done)
            guard !done.rejectedRequestLine else {
                // Only its status is known: libmicrohttpd answered the request line itself.
                return log.info("request", ["method": "unknown", "status": .number(Double(done.status.code)),
                                            "reason": "rejected by the HTTP layer"])
            }
            log.request(method: done.method, path: done.path, route: done.route, status: done.status, bytes: done.bytes,
                        durationSeconds: done.durationSeconds)
        }, onLibraryMessage: { [log] message in
            // A client gone while its answer was sent (every event stream's hang-up) is routine.
            log.write(LibraryMessages.saysClientWentAway(message) ? .debug : .warn, "http", ["message": .text(message)])
        }, beforeContinue: { [unowned self] request in
            refusedBeforeBody(request)
        }, decorateEarly: { [unowned self] request, response in
            decorate(&response, for: request)
        }, responder: { [unowned self] request in
            guard readiness.phase == .starting else { return respond(to: &request) }
            return finish(bootRouter.respondWhileStarting(to: &request), for: request)
        })
        let openFiles = OpenFileLimit.raise()
        if let openFiles, openFiles < OpenFileLimit.needed(forConnections: configuration.server.connectionLimit) {
            log.warn("the open-file limit is below what server.connectionLimit needs: connections past it wait unanswered; raise the hard limit (ulimit -Hn, LimitNOFILE=, --ulimit nofile=) or lower the connection limit",
                     ["openFiles": .number(Double(openFiles)), "connectionLimit": .number(Double(configuration.server.connectionLimit)),
                      "needed": .number(Double(OpenFileLimit.needed(forConnections: configuration.server.connectionLimit)))])
        }
        try server.start()
        self.server = server
        log.info("listening", ["address": .text("http://\(hostForURL):\(server.port)"),
                               "threads": .number(Double(configuration.server.workerThreads)),
                               "pinned": .bool(server.pinsThreads),
                               "allocator": .text(FreedMemory.allocator)])
        warnOfListsOnlyTheServiceReads()
        do {
            try load(authenticator: authenticator, webhookTargets: webhookTargets)
        } catch {
            server.stop(gracePeriod: 0)
            self.server = nil
            throw error
        }
    }

    /// The full pipeline once ready: a read asking for a version not yet applied parked until it
    /// is (``ReadYourWrites``), then ``answer(_:)``.
    private func respond(to request: inout Request) -> Response {
        if let readYourWrites, let version = readYourWrites.awaited(by: request) {
            request.route = router.match(request.pathSegments)?.template ?? ""
            return readYourWrites.park(request, until: version) { [self] in answer(&$0) }
        }
        return answer(&request)
    }

    /// The routes (the router answers `OPTIONS` itself), then ``finish(_:for:)``.
    private func answer(_ request: inout Request) -> Response {
        finish(router.respond(to: &request), for: request)
    }

    /// What every routed answer gets, while starting too: a CORS preflight its fields, the CORS
    /// headers (once), the caching fields, then gzip.
    @inline(__always)
    private func finish(_ routed: consuming Response, for request: Request) -> Response {
        var response = routed
        if request.method == .options { crossOrigin.preflight(&response, for: request) }
        if let deferred = response.deferred {
            let request = request
            return .later(deferred.map { [crossOrigin] response in
                var response = response
                Self.decorate(&response, for: request, crossOrigin: crossOrigin)
                return response
            })
        }
        decorate(&response, for: request)
        return response
    }

    /// The headers every answer gets, early ones (answered by the HTTP layer before routing) and
    /// refusals before `100 Continue` too: CORS, the caching fields, then gzip (on a problem
    /// answer only `Vary: Accept-Encoding`: a few bytes are never compressed).
    @inline(__always)
    private func decorate(_ response: inout Response, for request: Request) {
        Self.decorate(&response, for: request, crossOrigin: crossOrigin)
    }

    @inline(__always)
    private static func decorate(_ response: inout Response, for request: Request, crossOrigin: CrossOrigin) {
        crossOrigin.decorate(&response, for: request)
        CachePolicy.apply(to: &response, for: request)
        Compression.apply(to: &response, for: request)
    }

    /// The refusal of a guarded route (a record write without the service token), decided from
    /// the head alone so a client that waits for `100 Continue` is refused before it sends the body.
    private func refusedBeforeBody(_ request: Request) -> Response? {
        guard readiness.phase != .starting, let match = router.match(request.pathSegments) else { return nil }
        do {
            try match.admit(request)
            return nil
        } catch {
            var response = error.response
            decorate(&response, for: request)
            return response
        }
    }

    private var hostForURL: String {
        configuration.server.host.contains(":") ? "[\(configuration.server.host)]" : configuration.server.host
    }

    /// A list that needs a token while user tokens are not configured is read only with the
    /// service token: allowed, but worth a warning.
    private func warnOfListsOnlyTheServiceReads() {
        guard configuration.users == nil else { return }
        for list in configuration.lists where list.access == .users || list.scope != nil {
            log.warn("list readable only with the service token", [
                "list": .text(list.name),
                "reason": .text("it needs a user token (access users or scope) and auth.users is not configured"),
            ])
        }
    }

    private func load(authenticator: Authenticator, webhookTargets: [WebhookTarget]) throws {
        let started = Date()
        let store: RecordStore
        switch configuration.storage {
        case .sqlite(let path):
            do {
                store = try SQLiteStore(path: path)
            } catch {
                // SQLite's own errors ("file is not a database") do not say which file.
                guard case .sqlite = error.cause else { throw error }
                throw StoreError(error.cause, "\(path): \(error.message)")
            }
            log.info("storage", ["kind": "sqlite", "path": .text(path)])
            if let copies = (store as? SQLiteStore)?.rescuedCopiesBeside, let last = copies.last {
                log.warn("a new, empty database was made where an earlier one was deleted or replaced; its writes are in the rescued copy",
                         ["path": .text(path), "rescued": .text(copies.joined(separator: ", ")),
                          "action": .text("to go on with them, stop the server, put \(last) at \(path) and start it again")])
            }
        case .memory:
            // Numbered from the clock: no tag or version of an earlier process's memory store repeats.
            store = MemoryStore(after: ChangeNumbers.fromClock())
            log.info("storage", ["kind": "memory"])
        case .postgres(let url):
            store = try PostgresStore(url: url)
            log.info("storage", ["kind": "postgres", "url": .text(PostgresStore.redacting(url))])
        }
        recordStore = store
        if let shared = store as? PostgresStore {
            // Instances starting together on an empty database: one seeds, the others then find it done.
            _ = try shared.holdingSeedLock { try Seeder.seed(configuration.seeds, into: store, log: log) }
        } else {
            try Seeder.seed(configuration.seeds, into: store, log: log)
        }
        // Deliveries of webhooks no longer configured would wait forever, and those of lists a
        // webhook no longer follows must not be sent: they go.
        let followed = Dictionary(configuration.webhooks.map { ($0.url, $0.lists) }, uniquingKeysWith: +)
        let dropped = try store.dropDeliveries(except: followed)
        if dropped > 0 { log.warn("dropped webhook deliveries of webhooks or lists no longer configured", ["count": .number(Double(dropped))]) }
        let webhooks = webhookTargets.isEmpty ? nil : WebhookDelivery(targets: webhookTargets, store: store, metrics: metrics, log: log)
        let events = EventHub(maxStreams: configuration.eventStreamLimit)
        let lists = try ViewModelStore(definitions: configuration.lists, store: store, log: log, metrics: metrics,
                                       maxResidentRows: configuration.maxResidentRows, webhooks: configuration.webhooks) { versions in
            events.publish(versions)
            webhooks?.nudge(lists: versions.lazy.map(\.list))
        }
        // Loading parsed every record; the snapshots keep only rows. Give the freed memory back.
        FreedMemory.release()
        let views = try ViewRegistry(store: store, ttlSeconds: configuration.viewTTLSeconds,
                                     maxViews: configuration.maxViews, clock: clock)
        try views.expire()
        lists.followViews { ids in views.refresh(ids) }
        let context = ServiceContext(lists: lists, views: views, log: log, authenticator: authenticator,
                                     events: events, faults: storageFaults)
        var router = Router()
        router.repeatableQuery = ListQuery.isFilter
        OperationRoutes(readiness: readiness, faults: storageFaults).register(on: &router)
        let listRoutes = ListRoutes(context: context)
        listRoutes.register(on: &router)
        ChangeRoutes(context: context, lists: listRoutes).register(on: &router)
        ViewRoutes(context: context).register(on: &router)
        RecordRoutes(context: context).register(on: &router)
        DefinitionRoutes(context: context).register(on: &router)
        EventRoutes(context: context).register(on: &router)
        let server = server
        OperationRoutes.registerMetrics(on: &router, metrics: metrics, context: context) {
            server?.connections ?? ConnectionStatistics()
        }
        DocumentRoutes().register(on: &router)
        self.router = router
        self.readYourWrites = ReadYourWrites(applied: lists.applied, shared: lists.store is ChangeLog)
        self.lists = lists
        self.views = views
        self.events = events
        startSweeper(views)
        if case .postgres(let url) = configuration.storage {
            let follower = ChangeFollower(lists: lists, listener: PostgresChangeListener(url: url), faults: storageFaults, log: log)
            follower.start()
            self.follower = follower
        }
        if let webhooks {
            webhooks.start()
            self.webhooks = webhooks
            log.info("webhooks", ["count": .number(Double(webhookTargets.count))])
        }
        // Turning ready and taking a reload that waited are one step: a reload asked for meanwhile
        // either waits and is taken here, or finds the server ready.
        let waiting = waitingReload.withLock { waiting in
            readiness.set(.ready)
            defer { waiting = nil }
            return waiting
        }
        if let waiting { reloadLists(configPath: waiting.path, overrides: waiting.overrides) }
        // Ready without them: the first search after start does not wait for storage.
        lists.prepareCorporaLater()
        for state in lists.allLists() {
            log.info("list ready", ["list": .text(state.name), "version": .number(Double(state.version)),
                                    "sections": .number(Double(state.snapshot.sectionCount)),
                                    "rows": .number(Double(state.snapshot.totalRowCount))])
        }
        for definition in configuration.lists {
            guard let scope = definition.scope else { continue }
            log.info("per-user list ready (each user's partition is built on its first read)",
                     ["list": .text(definition.name), "field": .text(scope.field.description), "claim": .text(scope.claim),
                      "maxResidentRows": .number(Double(configuration.maxResidentRows))])
        }
        log.info("ready", ["seconds": .number((Date().timeIntervalSince(started) * 1000).rounded() / 1000)])
    }

    /// How often view uses are written and idle views expired: every minute, or every quarter of
    /// the views' TTL when that is shorter. Instances sharing PostgreSQL see each other's uses
    /// only once written, so with a TTL of a minute (the least) and a write a minute, one
    /// instance expired a view that another read every 20 s.
    static func sweepSeconds(viewTTLSeconds: Int) -> Double { min(60, Double(viewTTLSeconds) / 4) }

    /// Every ``sweepSeconds``: write view uses and expire idle views.
    private func startSweeper(_ views: ViewRegistry) {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + sweepSeconds, repeating: sweepSeconds)
        timer.setEventHandler { [log] in
            do {
                let expired = try views.expire()
                if expired > 0 { log.info("views expired", ["count": .number(Double(expired))]) }
            } catch {
                log.error("view sweep failed", ["error": .text("\(error)")])
            }
        }
        timer.resume()
        sweeper = timer
    }

    /// Stops gracefully (see the type's documentation).
    public func stop(gracePeriod: Double = 10) {
        readiness.set(.draining)
        sweeper?.cancel()
        // Accepting stops before the event streams end, so no new stream opens after them.
        server?.stopAccepting()
        events?.closeAll()
        server?.stop(gracePeriod: gracePeriod)
        server = nil
        follower?.stop()
        follower = nil
        webhooks?.stop()
        webhooks = nil
        do {
            try views?.flush()
        } catch {
            log.error("could not save view uses", ["error": .text("\(error)")])
        }
        if let told = (recordStore as? SQLiteStore)?.rescueIfGone() {
            log.error("the database file or its write-ahead log was deleted or replaced while the server had it open", ["rescue": .text(told)])
        }
        recordStore?.close()
        recordStore = nil
    }
}

extension Router {
    /// While data loads, only operations answer; everything else is `503` with `Retry-After`.
    func respondWhileStarting(to request: inout Request) -> Response {
        if match(request.pathSegments) != nil { return respond(to: &request) }
        return HTTPError(.serviceUnavailable, "not-ready", title: "Not ready", detail: "The server is still loading its data; try again shortly.",
                         headers: ["Retry-After": "1"]).response
    }
}
