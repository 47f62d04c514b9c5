import XCTest
@testable import ListModel

/// Page tokens stay at most 1 KiB whatever the data, and keep the paging contract.
final class LongKeyPagingTests: XCTestCase {
    let binding = PageBinding(list: "l", view: "v")
    static let long = String(repeating: "é", count: 14_000)   // 28,000 bytes
    /// With the "r" and a number before it, an id of 121–122 bytes: longer than the caps a
    /// token with several long sort values falls to (its id is never cut, or the walk repeats rows).
    static let longID = String(repeating: "x", count: 120)

    /// Walks all pages; `between` may change the list after each page. Returns delivered ids.
    func walk(_ list: ListSnapshot, size: Int, label: String, between: (inout ListSnapshot, [String]) -> Void = { _, _ in }) throws -> [String] {
        var list = list
        var ids: [String] = []
        var token: String? = nil
        var pages = 0
        repeat {
            let page = try list.page(size: size, token: token, view: ViewState(), binding: binding)
            var onPage: [String] = []
            for e in page.entries {
                for r in e.rowOffset..<(e.rowOffset + e.rowCount) { onPage.append(list.location(section: e.index, row: r, view: ViewState())?.rowID ?? "(no row)") }
            }
            ids += onPage
            token = page.nextPageToken
            if let t = token { XCTAssertLessThanOrEqual(t.utf8.count, PageToken.maxTextLength, "\(label): token of \(t.utf8.count) characters") }
            pages += 1
            if pages > 1000 { XCTFail("\(label): the walk does not end"); break }
            if token != nil { between(&list, onPage) }
        } while token != nil
        return ids
    }

    func allIDs(_ list: ListSnapshot) -> [String] { list.rowIDs.flatMap { $0 } }

    /// A 28,000-character sort key (and section key) gives a token of at most 1 KiB, and the
    /// walk goes on, in both directions and with several sort fields.
    func testLongKeysGiveBoundedTokensAndCompleteWalks() throws {
        for (n, sortBy) in [#"[{"field":"name"}]"#, #"[{"field":"name","order":"desc"}]"#,
                            #"[{"field":"name"},{"field":"k","order":"desc"},{"field":"name","order":"desc"}]"#,
                            #"[{"field":"k"}]"#, #"[{"field":"k","order":"desc"}]"#].enumerated() {
            let d = definition(#"{"sections":[{"source":"a","groupBy":"g","sectionOrder":"desc","sortBy":\#(sortBy),"row":{"title":"{k}"}}]}"#)
            var recs: [JSONValue] = []
            for i in 0..<24 {
                let name: String = i % 3 == 0 ? "n\(i)" : LongKeyPagingTests.long + (i % 2 == 0 ? "a" : "b") + String(i % 5)
                let group: String = i % 4 == 0 ? LongKeyPagingTests.long + "g" : "h"
                // Strings, and numbers whose 300-digit text is too long for a token (equal nearest doubles).
                let k: JSONValue = i % 2 == 0 ? .string(LongKeyPagingTests.long + String(i % 3))
                    : parse("1." + String(repeating: "0", count: 300) + "\(i % 7)")
                recs.append(.object(JSONObject([(key: "id", value: .string("r\(i)" + LongKeyPagingTests.longID)), (key: "name", value: .string(name)),
                                                (key: "g", value: .string(group)), (key: "k", value: k)])))
            }
            let list = ListSnapshot.build(definition: d, records: ["a": recs])
            for size in [1, 2, 5] {
                XCTAssertEqual(try walk(list, size: size, label: "sortBy #\(n) size \(size)"), allIDs(list), "sortBy #\(n) size \(size)")
            }
        }
    }

    /// With the last delivered row deleted, a cut token never skips a row; rows are repeated
    /// only when they share the cut prefix. With the row still in place, nothing is repeated,
    /// whatever else changes.
    func testCutTokensKeepTheContract() throws {
        for order in ["asc", "desc"] {
            let d = definition(#"{"sections":[{"source":"a","key":"all","sortBy":[{"field":"name","order":"\#(order)"}],"row":{}}]}"#)
            var recs: [JSONValue] = []
            for (i, tail) in ["a", "b", "c", "d", "e"].enumerated() {
                recs.append(["id": .string("p\(i)"), "name": .string(LongKeyPagingTests.long + tail)])
            }
            for (i, name) in ["a", "m", "z"].enumerated() { recs.append(["id": .string("s\(i)"), "name": .string(name)]) }
            let list = ListSnapshot.build(definition: d, records: ["a": recs])
            let all = allIDs(list)

            // The delivered row stays: unrelated inserts and deletes change nothing for stable rows.
            var counter = 0
            let walked = try walk(list, size: 2, label: order) { l, _ in
                counter += 1
                l.apply(.upsert(["id": .string("n\(counter)"), "name": .string("n\(counter)")]), collection: "a")
            }
            let stable = walked.filter { all.contains($0) }
            XCTAssertEqual(stable, all, "\(order): nothing skipped or repeated while the last row stays")

            // The delivered row is deleted: no stable row is skipped, repeats share the prefix.
            var deleted: Set<String> = []
            let walked2 = try walk(list, size: 2, label: order) { l, page in
                guard let last = page.last, last.hasPrefix("p"), deleted.count < 2 else { return }
                deleted.insert(last)
                l.apply(.delete(id: last), collection: "a")
            }
            XCTAssertFalse(deleted.isEmpty, "\(order): the test deleted a delivered row")
            XCTAssertEqual(Set(walked2), Set(all), "\(order): no row skipped")
            var seen: Set<String> = []
            for id in walked2 where !seen.insert(id).inserted {
                XCTAssertTrue(id.hasPrefix("p"), "\(order): \(id) repeated without sharing the cut prefix")
            }
        }
    }

    /// A cut section key whose section vanished (all its rows deleted) skips no other section,
    /// in ascending, descending and explicit section orders.
    func testCutSectionKeysSkipNoSection() throws {
        let long = LongKeyPagingTests.long
        for sectionOrder in [#""asc""#, #""desc""#, "[\"\(long)b\", \"m\", \"\(long)a\"]"] {
            let d = definition(#"{"sections":[{"source":"a","groupBy":"g","sectionOrder":\#(sectionOrder),"sortBy":[{"field":"n"}],"row":{}}]}"#)
            var group: [String: String] = [:]
            var recs: [JSONValue] = []
            for (i, g) in [long + "a", long + "b", long + "c", long, "m", "z", long + "b", long + "a"].enumerated() {
                group["r\(i)"] = g
                recs.append(["id": .string("r\(i)"), "g": .string(g), "n": .int(Int64(i))])
            }
            let list = ListSnapshot.build(definition: d, records: ["a": recs])
            let label = String(sectionOrder.prefix(8))
            for size in [1, 2, 3] {
                var deleted: Set<String> = []
                let walked = try walk(list, size: size, label: label) { l, page in
                    guard let last = page.last, let g = group[last], g.count > 100, deleted.isEmpty else { return }
                    for (id, h) in group where h == g {
                        deleted.insert(id)
                        l.apply(.delete(id: id), collection: "a")
                    }
                }
                let expected = Set(group.keys).subtracting(deleted)
                XCTAssertTrue(expected.isSubset(of: Set(walked)), "\(label) size \(size): skipped \(expected.subtracting(walked).sorted())")
            }
        }
    }
}
