import HTTPServer

/// Read-your-writes without holding a thread. A `GET` or `HEAD` of the API (`/v1/…`), or a write
/// to a list's view (which reads the list: the section an index names), that asks for a version
/// this instance has not applied yet (`minVersion=V` or `Sectional-Min-Version: V`) is parked:
/// its answer deferred, its connection suspended by the server, no thread held, until V is
/// applied or ``ServiceContext/minVersionWaitSeconds`` pass. Then it is answered as any
/// other request, and its route decides (``ServiceContext/requireMinVersion(_:)``: V applied,
/// or `503 not-caught-up`).
///
/// Waiting on the server's thread instead let a few such reads hold all of them: eight reads
/// asking for a version never written kept `/healthz` waiting four seconds on two threads.
///
/// On a store other instances write too, `GET …/changes?since=V` with V not applied here is
/// parked the same way: V is then most likely a version another instance made a moment ago
/// (a client's write, or an event it heard), not one the list never had. So is an event stream
/// opened with `Last-Event-ID: V` (a client that heard V from another instance, reconnecting
/// here through a load balancer): answered at once, V counted as never this server's and the
/// client told this instance's older versions again. A V not applied within the wait is then
/// taken as unknown, as on one instance (the stream opens; no `503`).
struct ReadYourWrites: Sendable {
    let applied: AppliedVersion
    /// Whether other instances write the store (so a version may exist before it is applied here).
    let shared: Bool

    /// The version `request` must wait for; nil when it goes on now (the check every request
    /// makes: a few comparisons, nothing allocated).
    func awaited(by request: Request) -> Int64? {
        guard request.pathSegments.first == "v1", request.method == .get || request.method == .head || Self.writesAView(request) else {
            return nil
        }
        var wanted = ServiceContext.minVersion(askedBy: request)
        if shared, Self.readsList(request, "changes"), let since = request.query("since").flatMap(ServiceContext.version) {
            wanted = max(wanted ?? since, since)
        }
        if shared, Self.readsList(request, "events"), let last = EventRoutes.lastEventID(request) {
            wanted = max(wanted ?? last, last)
        }
        guard let wanted, wanted > applied.current else { return nil }
        return wanted
    }

    /// Whether `request` reads `/v1/lists/{list}/<part>` (`changes`, `events`).
    private static func readsList(_ request: Request, _ part: String) -> Bool {
        let path = request.pathSegments
        return path.count == 4 && path[1] == "lists" && path[3] == part
    }

    /// Whether `request` writes a list's views (`/v1/lists/{list}/views…`; not a CORS preflight,
    /// which asks the same URL with `OPTIONS` and is answered without reading the list).
    private static func writesAView(_ request: Request) -> Bool {
        let path = request.pathSegments
        return request.method != .options && path.count >= 4 && path[1] == "lists" && path[3] == "views"
    }

    /// A deferred answer for `request`, completed with `answer(request)` once `version` is
    /// applied or the wait is over.
    func park(_ request: Request, until version: Int64, answer: @escaping @Sendable (inout Request) -> Response) -> Response {
        let deferred = DeferredResponse()
        // Made on the server's thread when it resumes the connection (not on the thread that
        // applied the version, nor on a queue that other work may hold up).
        applied.whenApplied(version, timeout: ServiceContext.minVersionWaitSeconds) {
            deferred.complete(building: {
                var request = request
                return answer(&request)
            })
        }
        return .later(deferred)
    }
}
