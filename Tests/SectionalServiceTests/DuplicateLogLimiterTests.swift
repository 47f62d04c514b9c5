import Locking
import XCTest
@testable import SectionalService

/// "duplicate rows dropped" is logged when a list's count changes, at most once a minute per list.
final class DuplicateLogLimiterTests: XCTestCase {
    func testLogsAChangedCountAtMostOnceAMinutePerList() {
        let now = Locked<Double>(1_000)
        let limiter = DuplicateLogLimiter(clock: { now.withLock { $0 } })
        func at(_ seconds: Double, _ list: String, _ count: Int) -> Bool {
            now.withLock { $0 = 1_000 + seconds }
            return limiter.shouldLog(list: list, count: count)
        }
        XCTAssertFalse(at(0, "a", 0), "no duplicates: nothing to say")
        XCTAssertTrue(at(0, "a", 3), "the first count is logged at once")
        XCTAssertFalse(at(1, "a", 4), "a change within the minute waits")
        XCTAssertFalse(at(59, "a", 5))
        XCTAssertTrue(at(1, "b", 1), "each list has its own minute")
        XCTAssertTrue(at(60, "a", 5), "a changed count after a minute is logged")
        XCTAssertFalse(at(61, "a", 6))
        XCTAssertFalse(at(200, "a", 5), "the count last logged is no change")
        XCTAssertTrue(at(200, "a", 7))
        XCTAssertTrue(at(260, "a", 0), "a count falling to zero is a change too")
    }
}
