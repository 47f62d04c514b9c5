@testable import HTTPServer
import XCTest
@testable import SectionalService

/// A stream reads the list's version only once it is registered, so no write published while it
/// opens is lost, and none is told twice.
final class EventHubTests: XCTestCase {
    /// The route read version 1; version 2 was published before the stream registered (nobody to
    /// tell). The stream's own read, after registering, finds 2.
    func testAVersionPublishedBeforeTheStreamRegistersIsItsGreeting() {
        let hub = EventHub(maxStreams: 10)
        let watcher = subscribe(hub, version: 1, lastEventID: 1)
        publishTwo(on: hub, seenBy: watcher)
        assertGreetedWithTwoOnce(subscribe(hub, version: 2, lastEventID: nil), hub: hub)
    }

    /// The stream's read finds version 1, then version 2 is published: the stream hears it,
    /// because it was registered before the read (read first, the publication found no stream
    /// and the stream was greeted with 1 only). Told once: a late delivery of 2 repeats nothing.
    func testAVersionPublishedAfterTheStreamsReadReachesItOnce() {
        let hub = EventHub(maxStreams: 10)
        let watcher = subscribe(hub, version: 1, lastEventID: 1)
        guard let late = try? hub.subscribe(stream: "people", list: "people", lastEventID: nil, current: {
            let read: Int64 = 1
            publishTwo(on: hub, seenBy: watcher)
            return read
        }) else { return XCTFail("refused") }
        assertGreetedWithTwoOnce(late, hub: hub)
    }

    /// A `Last-Event-ID` past the list's version (a client of another database at this address)
    /// is unknown: the stream's read finds 1, version 2 is published before the claim is
    /// checked — withheld for it, as the client claimed to have 100 — and the greeting is 2, not
    /// 1 with 2 never told (it was lost until the next write).
    func testAVersionWithheldForALastEventIDPastTheListIsTheGreeting() {
        let hub = EventHub(maxStreams: 10)
        let watcher = subscribe(hub, version: 1, lastEventID: 1)
        guard let stream = try? hub.subscribe(stream: "people", list: "people", lastEventID: 100, current: {
            let read: Int64 = 1
            publishTwo(on: hub, seenBy: watcher)
            return read
        }) else { return XCTFail("refused") }
        assertGreetedWithTwoOnce(stream, hub: hub)
    }

    /// A client that has the current version hears nothing until the next one.
    func testALastEventIDAtTheCurrentVersionIsNotGreetedWithIt() {
        let hub = EventHub(maxStreams: 10)
        let stream = subscribe(hub, version: 4, lastEventID: 4)
        XCTAssertEqual(Self.drain(stream), "retry: 2000\n: connected\n\n")
        hub.publish([Self.version(5)])
        XCTAssertEqual(waitFor(stream, toHold: "id: 5\n"), Self.event(5))
    }

    /// Once the streams are closed at a stop, a stream asked for (on a connection kept alive
    /// from before) is refused rather than left open to hold the stop up.
    func testNoStreamOpensAfterCloseAll() {
        let hub = EventHub(maxStreams: 10)
        let open = subscribe(hub, version: 1, lastEventID: nil)
        hub.closeAll()
        XCTAssertEqual(Self.drain(open), "retry: 2000\n: connected\n\n" + Self.event(1), "the open stream's bytes, then its end")
        XCTAssertThrowsError(try hub.subscribe(stream: "people", list: "people", lastEventID: nil, current: { 1 })) { error in
            XCTAssertEqual(error as? EventHub.Refusal, .closed)
        }
        XCTAssertEqual(hub.count, 1, "only the stream opened before (it ends once its connection does)")
        XCTAssertEqual(hub.refused, 0, "not counted as refused for the limit")
    }

    /// A definition change's event is told to every stream of its list, its users' too, which
    /// then end (opened again, each is answered by the new definition); another list's stream,
    /// and one whose name only begins like the list's, hear nothing and stay open.
    func testADefinitionChangeTellsAndEndsEveryStreamOfItsList() throws {
        let hub = EventHub(maxStreams: 10)
        func open(_ name: String, list: String) throws -> StreamBody {
            let stream = try hub.subscribe(stream: name, list: list, lastEventID: nil, current: { 3 })
            XCTAssertTrue(Self.drain(stream).hasSuffix("id: 3\nevent: version\ndata: {\"list\":\"\(list)\",\"version\":3}\n\n"))
            return stream
        }
        let whole = try open("orders", list: "orders")
        let alice = try open("orders\u{1F}s:alice", list: "orders")
        let other = try open("people", list: "people")
        let alike = try open("orders2", list: "orders2")
        hub.publish([VersionEvent(stream: "orders", list: "orders", version: 7, endsStreams: true)])
        let told = "id: 7\nevent: version\ndata: {\"list\":\"orders\",\"version\":7}\n\n"
        for stream in [whole, alice] {
            XCTAssertEqual(waitFor(stream, toHold: "id: 7\n"), told)
            XCTAssertEqual(try Self.readAtEnd(stream), -1, "the stream ends once told")
        }
        XCTAssertEqual(hub.count, 2)
        hub.publish([VersionEvent(stream: "people", list: "people", version: 8), VersionEvent(stream: "orders2", list: "orders2", version: 8)])
        XCTAssertNotNil(waitFor(other, toHold: "id: 8\n"))
        XCTAssertNotNil(waitFor(alike, toHold: "id: 8\n"), "orders2 is not a user of orders")
    }

    /// Publishes version 2 and waits until `watcher` has it (the publication is done).
    private func publishTwo(on hub: EventHub, seenBy watcher: StreamBody, line: UInt = #line) {
        hub.publish([Self.version(2)])
        XCTAssertNotNil(waitFor(watcher, toHold: "id: 2\n"), "the publication is done", line: line)
    }

    /// `stream` was greeted with version 2, which counts as told: a late delivery of 2, then 3,
    /// tells it only 3.
    private func assertGreetedWithTwoOnce(_ stream: StreamBody, hub: EventHub, line: UInt = #line) {
        XCTAssertEqual(Self.drain(stream), "retry: 2000\n: connected\n\n" + Self.event(2), line: line)
        hub.publish([Self.version(2), Self.version(3)])
        XCTAssertEqual(waitFor(stream, toHold: "id: 3\n"), Self.event(3), line: line)
    }

    private func subscribe(_ hub: EventHub, version: Int64, lastEventID: Int64?) -> StreamBody {
        guard let stream = try? hub.subscribe(stream: "people", list: "people", lastEventID: lastEventID, current: { version }) else {
            XCTFail("refused")
            return StreamBody()
        }
        return stream
    }

    private static func version(_ v: Int64) -> VersionEvent { VersionEvent(stream: "people", list: "people", version: v) }
    private static func event(_ v: Int64) -> String { "id: \(v)\nevent: version\ndata: {\"list\":\"people\",\"version\":\(v)}\n\n" }

    /// Polls `stream` (up to 10 s) until what it has pending holds `text`; returns everything read
    /// from it meanwhile, or nil when `text` never came.
    private func waitFor(_ stream: StreamBody, toHold text: String) -> String? {
        var seen = ""
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            seen += Self.drain(stream)
            if seen.contains(text) { return seen }
            usleep(1_000)
        }
        return nil
    }

    /// What `stream`'s next read returns once nothing is pending: -1 at its end.
    private static func readAtEnd(_ stream: StreamBody) throws -> Int {
        var buffer = [CChar](repeating: 0, count: 16)
        return buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, max: $0.count) }
    }

    /// What `stream` has pending (it has no connection, so it never suspends one).
    private static func drain(_ stream: StreamBody) -> String {
        var bytes: [UInt8] = []
        var buffer = [CChar](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, max: $0.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count].map { UInt8(bitPattern: $0) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
