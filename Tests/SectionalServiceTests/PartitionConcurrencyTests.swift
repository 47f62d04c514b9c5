import Dispatch
import Foundation
import Locking
import Synchronization
import TestSupport
import XCTest

/// Partitions built by readers while a writer moves records between users: a build that raced a
/// write must never be kept. With a budget that keeps only a few partitions, reads evict and
/// rebuild all the time. Every answer a reader got must show the user's records exactly as they
/// were at the version it names, and once the writes are acknowledged every user's list shows
/// every write.
final class PartitionConcurrencyTests: XCTestCase {
    func testPartitionsBuiltWhileRecordsMoveEndUpWithEveryAcknowledgedWrite() throws {
        var random = SplitMix64.replayable("PartitionConcurrencyTests")
        let p = try PartitionApp(maxResidentRows: 25)
        let users = (0..<6).map { "user\($0)" }
        var owners: [String: String] = [:]
        /// The owners after each commit, by its number.
        var history: [(sequence: Int64, owners: [String: String])] = []
        for n in 0..<60 {
            let owner = users[n % users.count]
            owners["o\(n)"] = owner
            history.append((try p.order("o\(n)", owner: owner), owners))
        }
        let seen = Locked<[(user: String, version: Int64, ids: Set<String>)]>([])
        let port = p.app.port
        let stop = Atomic<Bool>(false)
        let reads = Atomic<Int>(0)
        let failures = Locked<[String]>([])
        let readers = DispatchGroup()
        for reader in 0..<4 {
            DispatchQueue.global().async(group: readers) {
                var n = reader
                while !stop.load(ordering: .relaxed) {
                    let user = "user\(n % 6)"
                    n += 1
                    do {
                        let answer = try HTTPTestClient(port: port).request(
                            "GET", "/v1/lists/orders/rows?pageSize=500&user=\(user)",
                            headers: [("Authorization", "Bearer \(PartitionApp.serviceToken)")])
                        if answer.status != 200 { failures.withLock { $0.append("\(answer.status) \(answer.text.prefix(200))") } }
                        let page = try answer.json
                        let sections: [[String: Any]] = try page.value("sections")
                        let ids = try sections.flatMap { section -> [String] in
                            let rows: [[String: Any]] = try section.value("rows")
                            return try rows.map { try $0.value("id") }
                        }
                        let version: Int64 = try page.value("version")
                        seen.withLock { $0.append((user, version, Set(ids))) }
                        reads.add(1, ordering: .relaxed)
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        for _ in 0..<1_000 {
            let id = "o\(Int.random(in: 0..<60, using: &random))"
            let owner = users.randomElement(using: &random)!
            owners[id] = owner
            history.append((try p.order(id, owner: owner), owners))
        }
        stop.store(true, ordering: .relaxed)
        readers.wait()
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertGreaterThan(reads.load(ordering: .relaxed), 0)
        var wrong = 0
        for observation in seen.withLock({ $0 }) {
            guard let state = history.last(where: { $0.sequence <= observation.version }) else { continue }
            let expected = Set(state.owners.filter { $0.value == observation.user }.map(\.key)).union(["contact"])
            if observation.ids != expected {
                wrong += 1
                if wrong <= 3 { XCTFail("\(observation.user) at version \(observation.version) showed \(observation.ids.sorted()), not \(expected.sorted())") }
            }
        }
        XCTAssertEqual(wrong, 0, "answers whose rows were not those of their version")
        for user in users {
            let expected = Set(owners.filter { $0.value == user }.map(\.key)).union(["contact"])
            XCTAssertEqual(Set(try p.rowIDs(of: user)), expected, user)
        }
        let metrics = try p.app.get("/metrics").text
        XCTAssertGreaterThan(try XCTUnwrap(PartitionTests.metric("sectional_partition_evictions_total{kind=\"partition\"}", in: metrics)), 0,
                             "the budget made reads rebuild partitions")
    }
}
