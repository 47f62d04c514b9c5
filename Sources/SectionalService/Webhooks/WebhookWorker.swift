import Dispatch
import Foundation
import ListStore
import Locking
import Synchronization

/// Sends one webhook's deliveries waiting in the store's outbox, on a thread of its own (see
/// ``WebhookDelivery``).
///
/// The thread sleeps until a commit nudges it (``nudge()``), the next retry falls due, or
/// ``idleSeconds`` pass (rows another instance wrote, claims that ran out); then it claims due
/// rows of its webhook (a lease, so instances sharing a database never send the same row at
/// once), posts each, and removes it on a 2xx answer — unless a later version came meanwhile,
/// which is then sent at once. Any other answer, no answer, or a timeout leaves the row for a
/// retry after a backoff: the webhook's first wait, doubling per failure up to its longest, less
/// up to half at random (jitter, so receivers coming back are not hit by every row at once). At
/// start it sends what the outbox holds from before.
final class WebhookWorker: Sendable {
    /// The longest sleep between looks at the outbox.
    static let idleSeconds = 5.0
    /// Rows claimed at a time.
    static let batch = 16

    private let store: RecordStore
    private let target: WebhookTarget
    private let metrics: Metrics
    private let log: Log
    /// This worker's name on its claims.
    private let owner = UUID().uuidString
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    /// Whether the last look at the outbox failed (so a lasting store fault is logged once).
    private let storeFailing = Atomic<Bool>(false)
    /// What the store could not be told when it failed (a delivery's outcome, the rows claimed
    /// and not sent), told first at the next look: a receiver's 2xx not recorded was sent again
    /// once the claim's lease ran out (a minute or three later), and the rows claimed with it
    /// waited for that too.
    private let unsettled = Locked<[(delivery: PendingDelivery, outcome: Outcome)]>([])

    /// Failed attempts not logged yet, and when the last line was: a receiver that is down logs
    /// one line per ``failureLogSeconds`` (naming the attempts it stands for), not one per row and
    /// attempt — hundreds a second with many users' rows waiting. Metrics count every attempt. A
    /// delivery that goes through starts it over.
    private let failureLog = Locked<(unlogged: Int, loggedAt: ContinuousClock.Instant?)>((0, nil))
    /// Least time between two "delivery failed" lines of one webhook.
    static let failureLogSeconds = 10

    /// What becomes of a claimed row.
    private enum Outcome {
        case accepted
        case failed(retryAt: Int64)
        case released
    }

    /// The lists the webhook follows.
    var lists: [String] { target.settings.lists }

    init(target: WebhookTarget, store: RecordStore, metrics: Metrics, log: Log) {
        self.store = store
        self.target = target
        self.metrics = metrics
        self.log = log
    }

    /// Starts the thread.
    func start() {
        running.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            defer { finished.signal() }
            while !stopping.load(ordering: .acquiring) {
                let seconds = deliverDue()
                _ = wake.wait(timeout: .now() + seconds)
            }
        }
        thread.name = "sectional.webhook"
        thread.start()
    }

    /// Wakes the thread: a commit may have recorded deliveries.
    func nudge() { wake.signal() }

    /// Asks the thread to stop: the delivery in flight is given up within a tenth of a second (a
    /// receiver that does not answer cannot hold up a graceful stop) and released with the rows
    /// it had claimed and not sent, due at once, their failed attempts unchanged (a stop is not a
    /// failure). ``awaitStop()`` waits for it.
    func beginStop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        stopping.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Waits (at most a minute) for the thread ``beginStop()`` stopped; returns at once for a
    /// worker never started.
    func awaitStop() {
        guard stopping.load(ordering: .acquiring) else { return }
        if finished.wait(timeout: .now() + 60) == .timedOut {
            log.error("a webhook's delivery thread did not stop within 60 s", ["url": .text(target.settings.url)])
        }
    }

    /// Milliseconds since 1970: the outbox's time (shared by instances, whose clocks agree
    /// closely enough for retry times and leases).
    private static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Sends every due row; returns the seconds until the next look.
    private func deliverDue() -> Double {
        do {
            try settleUnsettled()
            var counted: ContinuousClock.Instant?
            while !stopping.load(ordering: .acquiring) {
                let now = Self.now()
                let lease = now + Int64(Self.batch * (target.settings.timeoutSeconds + 1) * 1000) + 10_000
                let claimed = try store.claimDeliveries(webhooks: [target.settings.url], now: now, claimUntil: lease, owner: owner,
                                                        limit: Self.batch)
                if claimed.isEmpty { break }
                // The gauge follows the outbox while rows go out too (a receiver down, a backlog):
                // counted with the first batch of each look, then at most once a second.
                if counted.map({ ContinuousClock.now - $0 >= .seconds(1) }) ?? true {
                    do throws(StoreError) {
                        _ = try countPending()
                    } catch {
                        unsettled.withLock { $0 += claimed.map { ($0, Outcome.released) } }
                        throw error
                    }
                    counted = .now
                }
                for (index, delivery) in claimed.enumerated() {
                    do throws(StoreError) {
                        guard !stopping.load(ordering: .acquiring) else {
                            // Released for the next start (or another instance), due at once: not tried, not failed.
                            try settle(delivery, .released)
                            continue
                        }
                        try deliver(delivery)
                    } catch {
                        unsettled.withLock { $0 += claimed.dropFirst(index + 1).map { ($0, Outcome.released) } }
                        throw error
                    }
                }
            }
            let status = try countPending()
            if storeFailing.exchange(false, ordering: .acquiringAndReleasing) { log.info("webhook outbox readable again", ["url": .text(target.settings.url)]) }
            guard let due = status.nextDue else { return Self.idleSeconds }
            return min(Self.idleSeconds, max(0.005, Double(due - Self.now()) / 1000))
        } catch {
            if !storeFailing.exchange(true, ordering: .acquiringAndReleasing) {
                log.warn("webhook outbox unavailable; retrying every second", ["url": .text(target.settings.url), "error": .text("\(error)")])
            }
            return 1
        }
    }

    /// Counts the webhook's rows in the outbox (the pending gauge) and returns its status.
    private func countPending() throws(StoreError) -> OutboxStatus {
        let status = try store.outboxStatus(webhooks: [target.settings.url])
        metrics.setWebhooksPending(status.pending, webhook: target.settings.url)
        return status
    }

    /// Posts one delivery and records its outcome in the outbox.
    private func deliver(_ delivery: PendingDelivery) throws(StoreError) {
        let settings = target.settings
        let body = WebhookSigner.body(of: delivery)
        let outcome: Result<Int, HTTPPoster.Failure>
        let signature = WebhookSigner(secret: target.secret).signature(of: body)
        if let signature {
            outcome = HTTPPoster.post(body, to: settings.target, headers: [(WebhookSigner.header, signature)],
                                      timeoutSeconds: Double(settings.timeoutSeconds)) { [self] in stopping.load(ordering: .acquiring) }
        } else {
            outcome = .failure(HTTPPoster.Failure(description: "libcrypto could not compute the signature"))
        }
        if case .failure = outcome, stopping.load(ordering: .acquiring) {
            // Given up for the stop: not an attempt (neither counted nor failed, the backoff
            // unchanged); released for the next start (or another instance), due at once.
            try settle(delivery, .released)
            return
        }
        if signature != nil { metrics.recordWebhookSent() }
        if case .success(let status) = outcome, (200..<300).contains(status) {
            metrics.recordWebhookOutcome(succeeded: true)
            // The receiver answers: the failures counted so far are over, but the next line
            // still waits out the 10 s (one that fails every other delivery logs no more).
            failureLog.withLock { $0.unlogged = 0 }
            try settle(delivery, .accepted)
            return
        }
        metrics.recordWebhookOutcome(succeeded: false)
        let wait = Self.backoffMilliseconds(attempts: delivery.attempts, settings: settings)
        try settle(delivery, .failed(retryAt: Self.now() + wait))
        let attempts = failureLog.withLock { log -> Int? in
            log.unlogged += 1
            if let at = log.loggedAt, ContinuousClock.now - at < .seconds(Self.failureLogSeconds) { return nil }
            defer { log = (0, .now) }
            return log.unlogged
        }
        guard let attempts else { return }
        let reason: String
        switch outcome {
        case .success(let status): reason = "answered \(status)"
        case .failure(let failure): reason = failure.description
        }
        log.warn("webhook delivery failed; will retry", [
            "url": .text(settings.url), "list": .text(delivery.list), "version": .number(Double(delivery.version)),
            "reason": .text(reason), "attempt": .number(Double(delivery.attempts + 1)), "retryInSeconds": .number(Double(wait) / 1000),
            "failedAttempts": .number(Double(attempts)),
        ])
    }

    /// Tells the store what became of a claimed row; when it cannot take it, keeps it for
    /// ``settleUnsettled()`` and throws.
    private func settle(_ delivery: PendingDelivery, _ outcome: Outcome) throws(StoreError) {
        do {
            switch outcome {
            case .accepted: try store.deliveryAccepted(delivery, owner: owner)
            case .failed(let retryAt): try store.deliveryFailed(delivery, owner: owner, retryAt: retryAt)
            case .released: try store.deliveryReleased(delivery, owner: owner)
            }
        } catch {
            unsettled.withLock { $0.append((delivery, outcome)) }
            throw error
        }
    }

    /// Tells the store the outcomes it could not take before, oldest first; throws (keeping
    /// the rest) while it still cannot.
    private func settleUnsettled() throws(StoreError) {
        while let (delivery, outcome) = unsettled.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            try settle(delivery, outcome)
        }
    }

    /// The wait before the next attempt after `attempts` earlier failures and this one: the
    /// first wait doubled per earlier failure, capped, then between half and all of it.
    static func backoffMilliseconds(attempts: Int, settings: WebhookSettings) -> Int64 {
        let cap = Int64(settings.maxRetrySeconds) * 1000
        let full = min(cap, Int64(settings.firstRetryMilliseconds) << Int64(min(attempts, 30)))
        return max(1, full / 2 + Int64.random(in: 0...(full / 2)))
    }
}
