import HTTPServer

/// Health and readiness (SPEC §5).
struct OperationRoutes {
    let readiness: Readiness

    func register(on router: inout Router) {
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        router.get("/readyz") { _ in
            let phase = readiness.phase
            return .json("{\"status\":\"\(phase.name)\"}", status: phase == .ready ? 200 : 503)
        }
    }
}
