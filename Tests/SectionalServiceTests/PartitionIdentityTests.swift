import Foundation
import TestSupport
import XCTest

/// Users are told apart by the code points of their names, as the stores tell records' owners
/// apart: names that are canonically equivalent (equal to Swift's `String`) but different — a
/// Kelvin sign for a K, an é written as e and a combining accent — are different users, with
/// partitions, versions and event streams of their own.
final class PartitionIdentityTests: XCTestCase {
    /// Enough pairs that some share a shard of the resident partitions (64 shards, placed by bytes).
    static let pairs = (0..<32).map { ("Karl\($0)", "\u{212A}arl\($0)") } + [("Jos\u{E9}", "Jose\u{301}")]

    private func encoded(_ user: String) -> String { user.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }

    func testCanonicallyEquivalentNamesAreDifferentUsers() throws {
        for sqlite in [false, true] {
            let p = try PartitionApp(sqlite: sqlite)
            for (n, (first, second)) in Self.pairs.enumerated() {
                try p.order("f\(n)", owner: first)
                // The second user's partition is built (from storage) after the first user's write.
                XCTAssertEqual(try p.rowIDs(of: encoded(second)), ["contact"], "\(second) saw \(first)'s order (sqlite: \(sqlite))")
                try p.order("s\(n)", owner: second)
                XCTAssertEqual(try p.rowIDs(of: encoded(first)), ["contact", "f\(n)"], "sqlite: \(sqlite)")
                XCTAssertEqual(try p.rowIDs(of: encoded(second)), ["contact", "s\(n)"], "sqlite: \(sqlite)")
            }
        }
    }

    func testEachHearsOnlyTheirOwnWritesOnTheEventStream() throws {
        let p = try PartitionApp()
        let (first, second) = ("Karl", "\u{212A}arl")
        try p.order("s0", owner: second)
        let client = try HTTPTestClient(port: p.app.port, timeoutSeconds: 5)
        try client.send("GET /v1/lists/orders/events?user=\(encoded(second)) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(PartitionApp.serviceToken)\r\n\r\n")
        XCTAssertTrue(try client.readUntil("\"version\":\(try p.version(of: encoded(second)))}").hasPrefix("HTTP/1.1 200"))
        let firstWrite = try p.order("f1", owner: first)
        let secondWrite = try p.order("s1", owner: second)
        let heard = try client.readUntil("\"version\":\(secondWrite)}")
        XCTAssertFalse(heard.contains("\"version\":\(firstWrite)}"), "\(second)'s stream heard \(first)'s write: \(heard)")
    }

    func testAViewIsOnlyItsOwnUsers() throws {
        let p = try PartitionApp()
        let (first, second) = ("Karl", "\u{212A}arl")
        let created = try p.app.request("POST", "/v1/lists/orders/views?user=\(encoded(first))", json: #"{"hidden":["help"]}"#, headers: p.service)
        let view: String = try created.expect(201).json.value("view")
        XCTAssertEqual(try p.get("/v1/lists/orders/views/\(view)", as: encoded(first)).status, 200)
        XCTAssertEqual(try p.get("/v1/lists/orders/views/\(view)", as: encoded(second)).slug, "view-not-found")
        XCTAssertEqual(try p.get("/v1/lists/orders/rows?view=\(view)", as: encoded(second)).slug, "view-not-found")
    }
}

extension PartitionIdentityTests {
    /// A thread remembers its last warm search (``RecentSearch``): a search by another user whose
    /// name, or a filter value, is canonically equivalent to that search's is not the same search.
    func testAThreadsLastSearchIsNotAnotherUsersOrAnotherFiltersResult() throws {
        let p = try PartitionApp()
        let (first, second) = ("Jos\u{E9}", "Jose\u{301}")
        try p.order("f1", owner: first, status: "\u{E9}t\u{E9}", title: "secret plan")
        try p.order("s1", owner: second, status: "e\u{301}te\u{301}", title: "public note")
        // One connection, so one server thread and its one remembered search.
        let client = try p.app.client()
        func ids(_ target: String, as user: String) throws -> [String] {
            let answer = try client.request("GET", "\(target)&user=\(encoded(user))", headers: p.service)
            let sections: [[String: Any]] = try answer.json.value("sections")
            return try sections.flatMap { section -> [String] in
                let rows: [[String: Any]] = try section.value("rows")
                return try rows.map { try $0.value("id") }
            }
        }
        // Both partitions resident first, so the search below finds the same table generation.
        XCTAssertEqual(try ids("/v1/lists/orders/rows?pageSize=10", as: second), ["contact", "s1"])
        for _ in 0..<3 { XCTAssertEqual(try ids("/v1/lists/orders/rows?q=secret", as: first), ["contact", "f1"]) }
        XCTAssertEqual(try ids("/v1/lists/orders/rows?q=secret", as: second), ["contact"], "\(second) was given \(first)'s search")
        for _ in 0..<3 { XCTAssertEqual(try ids("/v1/lists/all/rows?filter.status=\(encoded("\u{E9}t\u{E9}"))", as: first), ["f1"]) }
        XCTAssertEqual(try ids("/v1/lists/all/rows?filter.status=\(encoded("e\u{301}te\u{301}"))", as: first), ["s1"])
    }
}
