import Foundation
import Locking
import Synchronization
import TestSupport
import XCTest

final class ConsistencyTests: XCTestCase {
    /// Every batch rewrites all records with one generation number and the writer notes which
    /// version each generation made. A page rendered from one snapshot therefore shows one
    /// generation, and exactly the one its version was made by, whatever the writer does.
    func testReadersSeeWholeSnapshotsDuringWrites() throws {
        let config = """
        { "lists": { "gen": { "sections": [ { "key": "all", "source": "items",
            "row": { "type": "item", "title": "{gen}" } } ] } } }
        """
        let app = try TestApp(config: config)
        let count = 60, generations = 40, readers = 4
        @Sendable func batch(_ generation: Int) -> [UInt8] {
            Array(("{\"upsert\":[" + (0..<count).map { "{\"id\":\"i\($0)\",\"gen\":\(generation)}" }.joined(separator: ",") + "]}").utf8)
        }
        let port = app.port
        let failures = Locked<[String]>([])
        @Sendable func fail(_ message: String) { failures.withLock { $0.append(message) } }

        /// version → the generation whose batch made it.
        let made = Locked<[Int: Int]>([:])
        @Sendable func write(_ generation: Int, on client: HTTPTestClient) throws {
            let answer = try client.request("POST", "/v1/collections/items/batch", headers: [("Content-Type", "application/json")],
                                            body: batch(generation))
            guard answer.status == 200 else { throw UnexpectedAnswer(description: "batch \(generation): \(answer.status) \(answer.text)") }
            let version: Int = try client.request("GET", "/v1/lists/gen").json.value("version")
            made.withLock { $0[version] = generation }
        }
        try write(0, on: try app.client())

        struct Page { let version: Int, titles: [String] }
        let pages = Locked<[Page]>([])
        let firstReads = Counter(), writerDone = Atomic<Bool>(false), finished = Counter()
        for reader in 0..<readers {
            Thread {
                defer { finished.increment() }
                var read = 0
                do {
                    let client = try HTTPTestClient(port: port)
                    // Read until the writer is done, then once more.
                    var last = false
                    while !last {
                        last = writerDone.load(ordering: .acquiring)
                        let json = try client.request("GET", "/v1/lists/gen/rows?pageSize=500").json
                        let sections: [[String: Any]] = try json.value("sections")
                        let rows: [[String: Any]] = try cast(sections.first?["rows"])
                        let page = Page(version: try json.value("version"), titles: try rows.map { try $0.value("title") })
                        pages.withLock { $0.append(page) }
                        read += 1
                        if read == 1 { firstReads.increment() }
                    }
                } catch {
                    fail("reader \(reader): \(error)")
                    if read == 0 { firstReads.increment() }
                }
            }.start()
        }
        Thread {
            defer { writerDone.store(true, ordering: .releasing) }
            guard eventually(within: 30, { firstReads.value >= readers }) else { return fail("the readers never read") }
            do {
                let client = try HTTPTestClient(port: port)
                for generation in 1...generations { try write(generation, on: client) }
            } catch {
                fail("writer: \(error)")
            }
        }.start()
        XCTAssertTrue(eventually(within: 60) { finished.value == readers }, "readers finished")

        XCTAssertEqual(failures.withLock { $0 }, [])
        let versions = made.withLock { $0 }
        XCTAssertEqual(versions.count, generations + 1, "every batch made a version")
        let seen = pages.withLock { $0 }
        XCTAssertGreaterThanOrEqual(seen.count, readers * 2)
        for page in seen {
            XCTAssertEqual(page.titles.count, count, "version \(page.version) is missing rows")
            guard let generation = versions[page.version] else {
                XCTFail("version \(page.version) was made by no batch")
                continue
            }
            XCTAssertEqual(Set(page.titles), ["\(generation)"], "version \(page.version) shows other generations")
        }
        XCTAssertGreaterThan(Set(seen.map(\.version)).count, 1, "readers ran while the writer wrote")
    }
}
