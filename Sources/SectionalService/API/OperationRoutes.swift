import HTTPServer
import ListModel

/// Health, readiness and metrics.
struct OperationRoutes {
    let readiness: Readiness
    let faults: StorageFaults

    /// `/readyz` stays 200 while a storage fault refuses writes (reads go on) and names the
    /// fault in `storageFault` — except a database that cannot be reached: `503` with status
    /// `unavailable` (reads are still served from the last applied state); and an instance
    /// behind the change log's start: `503` with status `behind` until it restarts.
    func register(on router: inout Router) {
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        router.get("/readyz") { _ in
            let phase = readiness.phase
            let status = phase != .ready ? phase.name : faults.behind ? "behind" : faults.unreachable ? "unavailable" : phase.name
            return jsonAnswer(status: status == "ready" ? .ok : .serviceUnavailable, capacity: 64) { w in
                w.beginObject()
                w.key("status"); w.string(status)
                if let fault = faults.current { w.key("storageFault"); w.string(fault.rawValue) }
                w.endObject()
            }
        }
    }

    /// `GET /metrics` in the Prometheus text format.
    static func registerMetrics(on router: inout Router, metrics: Metrics, context: ServiceContext,
                                connections: @escaping @Sendable () -> ConnectionStatistics) {
        router.get("/metrics") { _ in
            let states = context.lists.allLists()
            let lists = states.map { (name: $0.name, rows: $0.snapshot.totalRowCount, version: $0.version) }
            let cached = context.lists.answerCacheUsage
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            return Response(status: .ok, headers: headers,
                            body: Array(metrics.render(lists: lists, connections: connections(),
                                                       streams: (open: context.events.count, refused: context.events.refused),
                                                       views: (count: context.views.count, evicted: context.views.evictions),
                                                       answerCache: cached, histories: context.lists.historySizes(),
                                                       refusedWrites: context.faults.refusedWrites,
                                                       writer: (ListHistory.pendingFrees, context.lists.queuedWrites),
                                                       resident: context.lists.residentStatistics,
                                                       searchCorpora: context.lists.searchCorpusRecords,
                                                       readsWaiting: context.lists.applied.waiting).utf8))
        }
    }
}
