import ListStore

/// Sends the deliveries waiting in the store's outbox: one ``WebhookWorker`` (and thread) per
/// webhook, so neither writes nor reads ever wait for a receiver, and a receiver that does not
/// answer holds up only its own webhook's deliveries, never another's.
final class WebhookDelivery: Sendable {
    private let workers: [WebhookWorker]

    /// One worker per webhook URL (the outbox's name for it; a URL given twice is sent once).
    init(targets: [WebhookTarget], store: RecordStore, metrics: Metrics, log: Log) {
        var seen: Set<String> = []
        workers = targets.filter { seen.insert($0.settings.url).inserted }
            .map { WebhookWorker(target: $0, store: store, metrics: metrics, log: log) }
    }

    /// Starts every worker's thread.
    func start() { workers.forEach { $0.start() } }

    /// Wakes every worker: a commit may have recorded deliveries.
    func nudge() { workers.forEach { $0.nudge() } }

    /// Stops every worker at once, each giving up its delivery in flight within a tenth of a
    /// second, and waits for them all.
    func stop() {
        workers.forEach { $0.beginStop() }
        workers.forEach { $0.awaitStop() }
    }
}
