import Dispatch
import Foundation
import Locking
import Synchronization
import TestSupport
import XCTest

/// Search results built by readers while a writer renames records in and out of them: a build
/// that raced a write must never be kept. With a budget that keeps only a few results, reads
/// evict and rebuild all the time. Every answer must show exactly the matching records at the
/// version it names, and once the writes are acknowledged every search shows every write.
final class SearchConcurrencyTests: XCTestCase {
    func testResultsBuiltWhileRecordsChangeEndUpWithEveryAcknowledgedWrite() throws {
        var random = SplitMix64.replayable("SearchConcurrencyTests")
        let token = SearchTests.serviceToken
        let app = try TestApp(config: SearchTests.config, token: token, maxResidentRows: 12)
        let names = ["Anna", "Bea", "Carl", "Dana", "Bert", "Cara"]
        let queries = ["an", "be", "ca"]
        var current: [String: String] = [:]
        var history: [(sequence: Int64, names: [String: String])] = []
        func rename(_ id: String, _ name: String) throws {
            let answer = try app.request("PUT", "/v1/collections/people/records/\(id)", json: #"{"name":"\#(name)","team":"T"}"#,
                                         headers: [("Authorization", "Bearer \(token)")])
            let tag = try answer.expect(200...201).header("ETag") ?? ""
            current[id] = name
            history.append((Int64(tag.dropFirst().dropLast()) ?? -1, current))
        }
        for n in 0..<30 { try rename("p\(n)", names[n % names.count]) }

        let seen = Locked<[(query: String, version: Int64, ids: Set<String>)]>([])
        let failures = Locked<[String]>([])
        let stop = Atomic<Bool>(false)
        let reads = Atomic<Int>(0)
        let port = app.port
        let readers = DispatchGroup()
        for reader in 0..<4 {
            DispatchQueue.global().async(group: readers) {
                var n = reader
                while !stop.load(ordering: .relaxed) {
                    let query = queries[n % queries.count]
                    n += 1
                    do {
                        let answer = try HTTPTestClient(port: port).request("GET", "/v1/lists/people/rows?pageSize=500&q=\(query)")
                        if answer.status != 200 { failures.withLock { $0.append("\(answer.status) \(answer.text.prefix(200))") } }
                        let page = try answer.json
                        let sections: [[String: Any]] = try page.value("sections")
                        let ids = try sections.flatMap { section -> [String] in
                            try section.value("rows", as: [[String: Any]].self).map { try $0.value("id") }
                        }
                        let version: Int64 = try page.value("version")
                        seen.withLock { $0.append((query, version, Set(ids))) }
                        reads.add(1, ordering: .relaxed)
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        for _ in 0..<600 {
            try rename("p\(Int.random(in: 0..<30, using: &random))", names.randomElement(using: &random)!)
        }
        stop.store(true, ordering: .relaxed)
        readers.wait()
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertGreaterThan(reads.load(ordering: .relaxed), 0)
        func expected(_ query: String, _ names: [String: String]) -> Set<String> {
            Set(names.filter { $0.value.lowercased().contains(query) }.map(\.key)).union(["me"])
        }
        var wrong = 0
        for observation in seen.withLock({ $0 }) {
            guard let state = history.last(where: { $0.sequence <= observation.version }) else { continue }
            if observation.ids != expected(observation.query, state.names) {
                wrong += 1
                if wrong <= 3 {
                    XCTFail("q=\(observation.query) at version \(observation.version) showed \(observation.ids.sorted()), not \(expected(observation.query, state.names).sorted())")
                }
            }
        }
        XCTAssertEqual(wrong, 0, "answers whose rows were not those of their version")
        for query in queries {
            let page = try app.get("/v1/lists/people/rows?pageSize=500&q=\(query)").json
            let ids = try page.value("sections", as: [[String: Any]].self).flatMap { section -> [String] in
                try section.value("rows", as: [[String: Any]].self).map { try $0.value("id") }
            }
            XCTAssertEqual(Set(ids), expected(query, current), query)
        }
        XCTAssertGreaterThan(try XCTUnwrap(app.metric("sectional_partition_evictions_total{kind=\"search\"}")), 0, "the budget made reads rebuild results")
    }
}
