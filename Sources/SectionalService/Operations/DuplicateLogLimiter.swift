import Locking

/// When to log "duplicate rows dropped": when a list's count of dropped duplicates differs from
/// the count last logged for it, and at most once a minute per list. (A steady write load on
/// duplicated records changes the count on every write; `sectional_duplicate_rows_total` counts
/// every row meanwhile.) The clock lives here, in the service, not in the pure list model.
final class DuplicateLogLimiter: Sendable {
    /// Least time between two log lines of one list, in seconds.
    static let interval: Double = 60

    private let clock: @Sendable () -> Double
    private let logged = Locked<[String: (count: Int, at: Double)]>([:])

    /// `clock` gives seconds on any monotonic scale (injected so tests can move time).
    init(clock: @escaping @Sendable () -> Double = DuplicateLogLimiter.monotonicSeconds) {
        self.clock = clock
    }

    /// Whether `list`'s current `count` should be logged now; if so, it is remembered as logged.
    /// A list never logged logs its first non-zero count at once.
    func shouldLog(list: String, count: Int) -> Bool {
        let now = clock()
        return logged.withLock { logged in
            if let last = logged[list] {
                guard last.count != count, now - last.at >= Self.interval else { return false }
            } else if count == 0 {
                return false
            }
            logged[list] = (count, now)
            return true
        }
    }

    @Sendable static func monotonicSeconds() -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private static let start = ContinuousClock.now
}
