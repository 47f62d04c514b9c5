import HTTPServer

/// Health, readiness and metrics (SPEC §5).
struct OperationRoutes {
    let readiness: Readiness

    func register(on router: inout Router) {
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        router.get("/readyz") { _ in
            let phase = readiness.phase
            return .json("{\"status\":\"\(phase.name)\"}", status: phase == .ready ? 200 : 503)
        }
    }

    /// `GET /metrics` in the Prometheus text format.
    static func registerMetrics(on router: inout Router, metrics: Metrics, context: ServiceContext,
                                connections: @escaping @Sendable () -> ConnectionStatistics) {
        router.get("/metrics") { _ in
            let lists = context.lists.allLists().map { (name: $0.name, rows: $0.snapshot.totalRowCount, version: $0.version) }
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            return Response(status: 200, headers: headers,
                            body: Array(metrics.render(lists: lists, connections: connections(),
                                                       streams: (open: context.events.count, refused: context.events.refused)).utf8))
        }
    }
}
