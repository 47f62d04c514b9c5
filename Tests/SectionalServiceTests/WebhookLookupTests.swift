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

    /// Of a host's addresses, one that does not answer (a route that drops packets) takes only
    /// its share of the timeout: the next is tried in time. Here the first is a listener whose
    /// queue of connections is full, which the kernel answers by dropping further ones.
    func testAnAddressThatDoesNotAnswerLeavesTimeForTheNext() throws {
        let full = try FullListener()
        defer { full.close() }
        let receiver = try WebhookReceiver(secret: "s")
        defer { receiver.stop() }
        let addresses = [full.port, receiver.port].map(Self.loopback)
        let lookup = HostLookup { _, _ in .success(addresses) }
        let outcome = HTTPPoster.post(Array("{}".utf8), to: url, headers: [], timeoutSeconds: 3, lookup: lookup)
        guard case .success(let status) = outcome else { return XCTFail("the second address was not tried in time: \(outcome)") }
        XCTAssertEqual(status, 204)
    }

    /// 127.0.0.1 at `port`, as a lookup gives it.
    private static func loopback(_ port: Int) -> HostAddress {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        return HostAddress(family: AF_INET, socketType: Int32(SOCK_STREAM.rawValue), socketProtocol: 0, bytes: bytes)
    }

    func testTheSystemLookupStillFindsAnAddress() {
        let outcome = HTTPPoster.post(Array("{}".utf8), to: try! WebhookURL.parse("http://localhost:1/").get(), headers: [],
                                      timeoutSeconds: 5)
        guard case .failure(let failure) = outcome else { return XCTFail("nothing listens on port 1: \(outcome)") }
        XCTAssertTrue(failure.description.hasPrefix("cannot connect to localhost:1:"), failure.description)
    }
}

/// A loopback listener that never accepts, its queue filled (a backlog of 0 holds one connection,
/// and two are made): a further connection to it gets no answer.
private final class FullListener {
    let port: Int
    private var descriptors: [Int32] = []

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        descriptors.append(fd)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 0) == 0 else { throw HTTPPoster.Failure(description: "cannot listen: errno \(errno)") }
        port = Int(UInt16(bigEndian: address.sin_port))
        for _ in 0..<2 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            descriptors.append(client)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
    }

    func close() { for fd in descriptors { _ = Glibc.close(fd) } }
}
