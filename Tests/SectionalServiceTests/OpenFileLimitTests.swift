import Glibc
import XCTest
@testable import SectionalService

/// The server raises its soft open-file limit to the hard one at start: services and containers
/// often start at 1,024, where connections past about a thousand wait unanswered.
final class OpenFileLimitTests: XCTestCase {
    func testTheSoftLimitIsRaisedToTheHardOne() throws {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var original = rlimit()
        XCTAssertEqual(getrlimit(resource, &original), 0)
        defer { _ = setrlimit(resource, &original) }
        // Below the hard limit, whatever it is (256, or half a lower one).
        var lowered = original
        lowered.rlim_cur = max(1, min(256, original.rlim_max / 2))
        XCTAssertEqual(setrlimit(resource, &lowered), 0)

        let raised = try XCTUnwrap(OpenFileLimit.raise())
        var now = rlimit()
        XCTAssertEqual(getrlimit(resource, &now), 0)
        XCTAssertEqual(now.rlim_cur, original.rlim_max, "the soft limit is the hard one")
        XCTAssertEqual(raised, now.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(now.rlim_cur))
        XCTAssertEqual(OpenFileLimit.needed(forConnections: 1000), 1064)
    }
}
