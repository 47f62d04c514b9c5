import Foundation
@testable import SectionalClient
import TestSupport
import XCTest

/// How long an event stream waits before reconnecting: a `503`'s `Retry-After` (the server's
/// `too-many-event-streams` says 5 s) rather than the backoff from the server's `retry:`.
final class EventReconnectTests: XCTestCase {
    func testA503RetryAfterSetsTheReconnectDelay() async throws {
        let server = try LiveServer(maxEventStreams: 1)
        let list = SectionalClient(baseURL: server.url).list("people")
        let holding = Collected(list.events())
        defer { holding.cancel() }
        await holding.waitFor("the first stream's greeting") { _ in true }
        let answer = try HTTPTestClient(port: server.port).request("GET", "/v1/lists/people/events", headers: [("Accept", "text/event-stream")])
        XCTAssertEqual(answer.status, 503, answer.text)
        let retryAfter = try XCTUnwrap(answer.header("Retry-After"))
        XCTAssertEqual(VersionEvents.reconnectDelay(retryAfter: retryAfter, fixed: nil, retry: 2, failures: 1), 5,
                       "the server's wait, not the backoff (2 s × 2)")
        XCTAssertEqual(VersionEvents.reconnectDelay(retryAfter: retryAfter, fixed: 0.2, retry: 2, failures: 1), 5,
                       "the server's wait wins over a fixed delay")
    }

    func testReconnectDelays() {
        let delay = VersionEvents.reconnectDelay
        // Without a Retry-After: the server's retry, doubled per failure in a row (to 30 s), or the fixed delay.
        XCTAssertEqual(delay(nil, nil, 2, 0, Date()), 2)
        XCTAssertEqual(delay(nil, nil, 2, 2, Date()), 8)
        XCTAssertEqual(delay(nil, nil, 2, 9, Date()), 30)
        XCTAssertEqual(delay(nil, 0.2, 2, 3, Date()), 0.2)
        // A Retry-After: seconds or an HTTP date, at most 5 minutes; one that is neither is ignored.
        XCTAssertEqual(delay("0", nil, 2, 1, Date()), 0)
        XCTAssertEqual(delay("86400", nil, 2, 1, Date()), 300)
        XCTAssertEqual(delay("soon", nil, 2, 1, Date()), 4)
        XCTAssertEqual(delay("-3", nil, 2, 1, Date()), 4)
        let now = Date(timeIntervalSince1970: 1_700_000_000)   // Tue, 14 Nov 2023 22:13:20 GMT
        XCTAssertEqual(delay("Tue, 14 Nov 2023 22:13:32 GMT", nil, 2, 1, now), 12)
        XCTAssertEqual(delay("Tue, 14 Nov 2023 22:13:00 GMT", nil, 2, 1, now), 0, "a date passed: at once")
    }
}
