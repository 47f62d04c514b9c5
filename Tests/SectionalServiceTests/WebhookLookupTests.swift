import Dispatch
import Foundation
@testable import SectionalService
import Synchronization
import XCTest

/// A webhook host's name lookup is bounded like the rest of a delivery: by its timeout and by the
/// server's stop. The system's resolver cannot be made to hang from a test, so these hand the
/// poster a lookup that blocks until the test lets it go.
final class WebhookLookupTests: XCTestCase {
    /// Let go of (after the assertions) so no lookup thread outlives its test for long.
    private let gate = DispatchSemaphore(value: 0)
    private let url = try! WebhookURL.parse("http://hook.invalid:8080/hook").get()

    override func tearDown() {
        gate.signal()
        super.tearDown()
    }

    /// A lookup that answers only when the gate opens (or after 10 s, as a failure the tests
    /// tell apart from the poster's own).
    private func hangingLookup(entered: @escaping @Sendable () -> Void = {}) -> HostLookup {
        HostLookup { [gate] _, _ in
            entered()
            _ = gate.wait(timeout: .now() + 10)
            return .failure(HTTPPoster.Failure(description: "the lookup answered"))
        }
    }

    func testALookupThatDoesNotAnswerFailsTheDeliveryAtItsTimeout() {
        let outcome = HTTPPoster.post(Array("{}".utf8), to: url, headers: [], timeoutSeconds: 0.3, lookup: hangingLookup())
        guard case .failure(let failure) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(failure.description, "timed out resolving hook.invalid")
    }

    func testAStopGivesUpALookupThatDoesNotAnswer() {
        let stopping = Atomic<Bool>(false)
        // The stop comes while the lookup hangs; the delivery's own timeout is an hour away.
        let lookup = hangingLookup { stopping.store(true, ordering: .releasing) }
        let outcome = HTTPPoster.post(Array("{}".utf8), to: url, headers: [], timeoutSeconds: 3600,
                                      stopping: { stopping.load(ordering: .acquiring) }, lookup: lookup)
        guard case .failure(let failure) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(failure.description, "given up: the server is stopping")
    }

    /// Deliveries to a host whose lookup still runs (an earlier delivery's, given up) wait for
    /// that lookup instead of starting one each: a host whose name server never answers holds
    /// one thread, however often its deliveries are retried. Once that lookup has ended, the
    /// next delivery looks the host up again.
    func testDeliveriesToAHostWhoseLookupStillRunsShareIt() {
        let lookups = Atomic<Int>(0)
        let lookup = hangingLookup { _ = lookups.add(1, ordering: .relaxed) }
        for attempt in 1...3 {
            let outcome = HTTPPoster.post(Array("{}".utf8), to: url, headers: [], timeoutSeconds: 0.2, lookup: lookup)
            guard case .failure(let failure) = outcome else { return XCTFail("\(outcome)") }
            XCTAssertEqual(failure.description, "timed out resolving hook.invalid", "attempt \(attempt)")
        }
        XCTAssertEqual(lookups.load(ordering: .relaxed), 1, "three deliveries, one lookup")
        gate.signal()   // the lookup answers (and a new one, once started, hangs again)
        let deadline = Date().addingTimeInterval(5)
        while lookups.load(ordering: .relaxed) < 2, Date() < deadline {
            _ = HTTPPoster.post(Array("{}".utf8), to: url, headers: [], timeoutSeconds: 0.05, lookup: lookup)
        }
        XCTAssertEqual(lookups.load(ordering: .relaxed), 2, "a delivery after the lookup ended looked again")
    }

    func testTheSystemLookupStillFindsAnAddress() {
        let outcome = HTTPPoster.post(Array("{}".utf8), to: try! WebhookURL.parse("http://localhost:1/").get(), headers: [],
                                      timeoutSeconds: 5)
        guard case .failure(let failure) = outcome else { return XCTFail("nothing listens on port 1: \(outcome)") }
        XCTAssertTrue(failure.description.hasPrefix("cannot connect to localhost:1:"), failure.description)
    }
}
