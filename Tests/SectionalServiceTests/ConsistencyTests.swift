import Dispatch
import Foundation
import Synchronization
import TestSupport
import XCTest

final class ConsistencyTests: XCTestCase {
    /// Every batch rewrites all records with one generation number; a page rendered from one
    /// snapshot therefore shows one generation, matching its version, whatever the writer does.
    func testReadersSeeWholeSnapshotsDuringWrites() throws {
        let config = """
        { "lists": { "gen": { "sections": [ { "key": "all", "source": "items",
            "row": { "type": "item", "title": "{gen}" } } ] } } }
        """
        let app = try TestApp(config: config)
        let count = 60
        @Sendable func batch(_ generation: Int) -> String {
            "{\"upsert\":[" + (0..<count).map { "{\"id\":\"i\($0)\",\"gen\":\(generation)}" }.joined(separator: ",") + "]}"
        }
        XCTAssertEqual(try app.request("POST", "/v1/collections/items/batch", json: batch(0)).status, 200)
        let writerDone = DispatchSemaphore(value: 0)
        let port = app.port
        DispatchQueue.global().async {
            defer { writerDone.signal() }
            guard let client = try? HTTPTestClient(port: port) else { return }
            for generation in 1...40 {
                _ = try? client.request("POST", "/v1/collections/items/batch", headers: [("Content-Type", "application/json")],
                                        body: Array(batch(generation).utf8))
            }
        }
        let mixed = Counter(), pagesRead = Counter()
        let versionsSeen = Mutex(Set<Int>())
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            guard let client = try? HTTPTestClient(port: port) else { return }
            for _ in 0..<60 {
                guard let answer = try? client.request("GET", "/v1/lists/gen/rows?pageSize=500") else { continue }
                let json = answer.json
                let rows = ((json["sections"] as? [[String: Any]])?.first?["rows"] as? [[String: Any]]) ?? []
                let generations = Set(rows.map { $0["title"] as? String ?? "?" })
                if rows.count != count || generations.count != 1 { mixed.increment() }
                pagesRead.increment()
                versionsSeen.withLock { _ = $0.insert(json["version"] as? Int ?? -1) }
            }
        }
        XCTAssertEqual(writerDone.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(pagesRead.value, 240)
        XCTAssertEqual(mixed.value, 0, "a page mixed two versions")
        XCTAssertGreaterThan(versionsSeen.withLock { $0.count }, 1, "readers ran while the writer wrote")
    }
}
