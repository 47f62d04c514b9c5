@testable import HTTPServer
import XCTest
@testable import SectionalService

/// A stream opened while a write is published hears of it: the route reads the list, subscribes,
/// then reads the list again and catches the stream up.
final class EventHubTests: XCTestCase {
    func testAVersionPublishedBeforeTheSubscriptionIsToldByTheCatchUp() {
        let hub = EventHub(maxStreams: 10)
        // A stream open before the write, to see when its publication is done.
        guard let early = hub.subscribe(stream: "people", list: "people", current: 1, lastEventID: 1) else { return XCTFail("refused") }
        // The route read version 1; the write of version 2 is published before it subscribes.
        hub.publish([VersionEvent(stream: "people", list: "people", version: 2)])
        XCTAssertNotNil(waitFor(early, toHold: "id: 2\n"), "the early stream hears version 2")
        guard let late = hub.subscribe(stream: "people", list: "people", current: 1, lastEventID: nil) else { return XCTFail("refused") }
        var told = Self.drain(late)
        XCTAssertTrue(told.contains("id: 1\n"), "greeted with the version it read: \(told)")
        XCTAssertFalse(told.contains("id: 2\n"), "version 2 was published before it subscribed")

        hub.catchUp(late, stream: "people", list: "people", to: 2)
        told = Self.drain(late)
        XCTAssertEqual(told, "id: 2\nevent: version\ndata: {\"list\":\"people\",\"version\":2}\n\n")
        // Told once: neither a second catch-up nor a late delivery of the same version repeats it.
        hub.catchUp(late, stream: "people", list: "people", to: 2)
        hub.publish([VersionEvent(stream: "people", list: "people", version: 2), VersionEvent(stream: "people", list: "people", version: 3)])
        XCTAssertNotNil(waitFor(early, toHold: "id: 3\n"))
        let after = waitFor(late, toHold: "id: 3\n")
        XCTAssertEqual(after, "id: 3\nevent: version\ndata: {\"list\":\"people\",\"version\":3}\n\n", "version 2 told twice?")
    }

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
