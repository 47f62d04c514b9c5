/// Following the list: a sync for every version its event stream announces, tried again while
/// the server is away or behind.
extension ListMirror {
    /// Every later sync, run when the list's event stream announces a version other than the
    /// mirror's: a newer one, or an older one (the server went back: a new database at its address, one
    /// put back by a file copy; the sync then reloads). Versions a sync took in before they were
    /// announced start none (see ``isTakenIn(_:after:mirror:)``): a burst of writes costs a sync,
    /// not one a version, so writes coming faster than syncs do not leave the mirror ever further
    /// behind. The stream reconnects (with
    /// `Last-Event-ID`) when it drops, after `reconnectDelay` seconds when given (see
    /// ``SectionalList/events(reconnectDelay:)``); a sync that fails while the server is away (a
    /// network error, a 502, 503 or 504) is tried again after the server's `Retry-After` (at least
    /// a second), else after the same delay, backing off, until it gets through. Another problem
    /// ends the sequence with it.
    public nonisolated func updates(reconnectDelay: Double? = nil) -> AsyncThrowingStream<Update, Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Update.self)
        let task = Task {
            do {
                var heard: Int64?  // the version the stream announced before
                for try await event in list.events(reconnectDelay: reconnectDelay) {
                    defer { heard = event.version }
                    // After a reconnect the stream says where the list is now; what was heard before
                    // says nothing of it (the server may have gone back below the mirror in between).
                    let before = event.isFirstOnConnection ? nil : heard
                    if let current = await snapshot?.version, Self.isTakenIn(event.version, after: before, mirror: current) { continue }
                    continuation.yield(try await syncRetrying(atLeast: event.version, reconnectDelay: reconnectDelay))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Whether an event announcing `version` needs no sync: the mirror is at it (`current`), or
    /// already past it by a sync an earlier event started — the event moves on from the one heard
    /// before it (`heard`), as the writes of a burst announced while one sync took them all in
    /// do. An event below the one before it is a server that went back, and syncs.
    static func isTakenIn(_ version: Int64, after heard: Int64?, mirror current: Int64) -> Bool {
        version == current || (heard.map { $0 < version } ?? false) && version < current
    }

    /// ``sync()`` reading at least `version` (an event's), tried again while the server is away
    /// or behind (a network error, a 502, 503 or 504) after the server's `Retry-After` (at least a
    /// second), else the event stream's reconnect delay for as many failures in a row (the
    /// server's `retry:` is 2 s). Another problem, or cancellation, is thrown.
    ///
    /// A server still short of the event's version after ``floorTries`` such answers (some 6 s: it waits
    /// a second each time, and so does the mirror) went back rather than lags — a database put
    /// back below the version the event named, the event's write lost with it —, so the mirror
    /// then reads it as it is, and reloads when it is ahead of it.
    nonisolated func syncRetrying(atLeast version: Int64, reconnectDelay: Double?) async throws -> Update {
        var failures = 0, notCaughtUp = 0
        var floor: Int64? = version
        while true {
            do {
                return try await serially { [floor] mirror in
                    if let floor { try await mirror.syncNow(atLeast: floor) } else { try await mirror.syncNow() }
                }
            } catch let problem as SectionalError where !problem.serverAway {
                throw problem
            } catch {
                try Task.checkCancellation()
                failures += 1
                if (error as? SectionalError)?.slug == "not-caught-up" {
                    notCaughtUp += 1
                    if notCaughtUp >= Self.floorTries { floor = nil }
                }
                // The server's own wait first (a `503 storage-unavailable` asks 10 s, `not-caught-up`
                // 1 s; at least a second: ``VersionEvents/reconnectDelay(retryAfter:fixed:retry:failures:now:)``).
                let retryAfter = (error as? SectionalError)?.retryAfter
                let delay = VersionEvents.reconnectDelay(retryAfter: retryAfter, fixed: reconnectDelay, retry: 2, failures: failures)
                try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            }
        }
    }

    /// `not-caught-up` answers to a sync reading at least an event's version before it reads
    /// without it (see ``syncRetrying(atLeast:reconnectDelay:)``).
    static let floorTries = 3
}
