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

    /// What an event stream and a mirror's sync try again after (the server away), and what ends
    /// them: a proxy's 502 or 504 (the deployment's nginx while every instance restarts) ended
    /// `updates()` for good. (End to end through a proxy: the JavaScript client's edges test.)
    func testAProxysBadGatewayIsTheServerAway() {
        for status in [0, 502, 503, 504] {
            XCTAssertTrue(SectionalError(slug: "http-\(status)", status: status, detail: "").serverAway, "\(status)")
        }
        for status in [400, 401, 404, 410, 412, 500, 501] {
            XCTAssertFalse(SectionalError(slug: "http-\(status)", status: status, detail: "").serverAway, "\(status)")
        }
    }

    /// A problem keeps its answer's `Retry-After`, which a mirror's sync waits (it waited its own
    /// backoff, 4 s then 8, whatever the server asked: 1 s for `not-caught-up`, 10 for a full disk).
    func testAProblemKeepsItsRetryAfter() async throws {
        let server = try LiveServer()
        let ahead = SectionalClient(baseURL: server.url).reading(atLeast: 1_000_000_000).list("people")
        do {
            _ = try await ahead.outline()
            XCTFail("a version no instance has applied")
        } catch let problem as SectionalError {
            XCTAssertEqual(problem.status, 503, "\(problem)")
            XCTAssertEqual(problem.slug, "not-caught-up")
            XCTAssertEqual(problem.retryAfter, "1")
            XCTAssertEqual(VersionEvents.reconnectDelay(retryAfter: problem.retryAfter, fixed: nil, retry: 2, failures: 1), 1)
        }
    }

    /// `retry:` takes only ASCII digits, as the event-stream format says: `-5` made the delay
    /// negative, and converting it to nanoseconds trapped.
    func testRetryTakesOnlyDigits() {
        var parser = EventParser()
        _ = parser.feed(Data("retry: 3000\n\n".utf8))
        XCTAssertEqual(parser.retryMilliseconds, 3000)
        for refused in ["-5", "+5", "", "1.5", "٣"] {
            _ = parser.feed(Data("retry: \(refused)\n\n".utf8))
            XCTAssertEqual(parser.retryMilliseconds, 3000, "retry: \(refused)")
        }
    }

    func testReconnectDelays() {
        let delay = VersionEvents.reconnectDelay
        // Without a Retry-After: the server's retry, doubled per failure in a row (to 30 s), or the fixed delay.
        XCTAssertEqual(delay(nil, nil, 2, 0, Date()), 2)
        XCTAssertEqual(delay(nil, nil, 2, 2, Date()), 8)
        XCTAssertEqual(delay(nil, nil, 2, 9, Date()), 30)
        XCTAssertEqual(delay(nil, 0.2, 2, 3, Date()), 0.2)
        // A Retry-After: seconds or an HTTP date, at most 5 minutes; one that is neither is ignored.
        XCTAssertEqual(delay("0", nil, 2, 1, Date()), 1, "at least a second")
        XCTAssertEqual(delay("86400", nil, 2, 1, Date()), 300)
        XCTAssertEqual(delay("soon", nil, 2, 1, Date()), 4)
        XCTAssertEqual(delay("-3", nil, 2, 1, Date()), 4)
        let now = Date(timeIntervalSince1970: 1_700_000_000)   // Tue, 14 Nov 2023 22:13:20 GMT
        XCTAssertEqual(delay("Tue, 14 Nov 2023 22:13:32 GMT", nil, 2, 1, now), 12)
        XCTAssertEqual(delay("Tue, 14 Nov 2023 22:13:00 GMT", nil, 2, 1, now), 1, "a date passed: a second")
        // Never negative (a negative delay trapped converting to nanoseconds).
        XCTAssertEqual(delay(nil, -5, 2, 1, Date()), 0)
    }
}
