import XCTest
@testable import ListModel
import SectionalService   // the answers' envelopes

final class PagingTests: XCTestCase {
    let binding = PageBinding(list: "l", view: nil)

    func testPageSizeRules() throws {
        XCTAssertEqual(try PageSize.parse(nil), 50)
        XCTAssertEqual(try PageSize.parse("0"), 50)
        XCTAssertEqual(try PageSize.parse("7"), 7)
        XCTAssertEqual(try PageSize.parse("007"), 7)
        XCTAssertEqual(try PageSize.parse("500"), 500)
        XCTAssertEqual(try PageSize.parse("501"), 500)
        XCTAssertEqual(try PageSize.parse("99999999999999999999"), 500)
        for bad in ["-1", "1.5", "abc", "", "+3", " 3", "1e2"] {
            XCTAssertThrowsError(try PageSize.parse(bad), bad) { XCTAssertEqual($0 as? PageSize.InvalidPageSize, PageSize.InvalidPageSize(text: bad)) }
        }
        XCTAssertEqual(PageSize.resolve(0), 50)
        XCTAssertEqual(PageSize.resolve(1000), 500)
    }

    /// e0 (empty) | a [a0 a1 a2] | h hidden [h0] | e1 empty | b [b0 b1] | e2 empty
    let d = definition(#"""
    {"sections":[
      {"key":"e0"},
      {"key":"a","rows":[{"id":"a0"},{"id":"a1"},{"id":"a2"}]},
      {"key":"h","hidden":true,"rows":[{"id":"h0"}]},
      {"key":"e1"},
      {"key":"b","rows":[{"id":"b0"},{"id":"b1"}]},
      {"key":"e2"}
    ]}
    """#)

    func pageJSON(_ l: ListSnapshot, _ size: Int, _ token: String?, view: ViewState) throws -> JSONValue {
        let p = try l.page(size: size, token: token, view: view, binding: binding)
        var w = JSONWriter()
        l.writePageAnswer(p, list: "l", version: 4, into: &w)
        return try JSONParser.parse(w.bytes)
    }

    func summary(_ page: JSONValue) -> String {
        page["sections"]!.arrayValue!.map { s in
            "\(s["key"]!.stringValue!)@\(s["rowOffset"]!.intValue!)[" + s["rows"]!.arrayValue!.map { $0["id"]!.stringValue! }.joined(separator: ",") + "]"
        }.joined(separator: " ")
    }

    func testSectionPlacementRule() throws {
        let l = ListSnapshot.build(definition: d, records: [:])
        let v = d.defaultView
        let p1 = try pageJSON(l, 2, nil, view: v)
        XCTAssertEqual(summary(p1), "e0@0[] a@0[a0,a1]")
        XCTAssertEqual(p1["itemsBefore"], 0)
        XCTAssertEqual(p1["itemsAfter"], 3)
        XCTAssertEqual(p1["list"], "l")
        XCTAssertEqual(p1["version"], 4)
        let p2 = try pageJSON(l, 2, p1["nextPageToken"]!.stringValue, view: v)
        XCTAssertEqual(summary(p2), "a@2[a2] h@0[] e1@0[] b@0[b0]")
        XCTAssertEqual(p2["itemsBefore"], 2)
        XCTAssertEqual(p2["itemsAfter"], 1)
        XCTAssertEqual(p2["sections"]!.arrayValue![1]["hidden"], true)
        XCTAssertEqual(p2["sections"]!.arrayValue![1]["rowCount"], 0)
        let p3 = try pageJSON(l, 2, p2["nextPageToken"]!.stringValue, view: v)
        XCTAssertEqual(summary(p3), "b@1[b1] e2@0[]")
        XCTAssertNil(p3["nextPageToken"])
        XCTAssertEqual(p3["itemsBefore"], 4)
        XCTAssertEqual(p3["itemsAfter"], 0)

        // Page boundary exactly at a section end: rowless sections before the next row stay on the earlier page.
        let q1 = try pageJSON(l, 3, nil, view: v)
        XCTAssertEqual(summary(q1), "e0@0[] a@0[a0,a1,a2] h@0[] e1@0[]")
        let q2 = try pageJSON(l, 3, q1["nextPageToken"]!.stringValue, view: v)
        XCTAssertEqual(summary(q2), "b@0[b0,b1] e2@0[]")
        XCTAssertNil(q2["nextPageToken"])

        // One page for everything; JSON key order, as the contract fixes it.
        let all = try l.page(size: 50, token: nil, view: v, binding: binding)
        var w = JSONWriter()
        l.writePageAnswer(all, list: "l", version: 4, into: &w)
        XCTAssertTrue(text(w).hasPrefix(#"{"list":"l","version":4,"sections":[{"index":0,"key":"e0","#), text(w))
        XCTAssertTrue(text(w).hasSuffix(#""firstTag":6,"rowOffset":0,"rows":[]}],"itemsBefore":0,"itemsAfter":0}"#), text(w))
        XCTAssertEqual(all.entries.count, 6)
        XCTAssertNil(all.nextPageToken)
    }

    func testNoVisibleRowsIsOnePageWithAllSections() throws {
        let l = ListSnapshot.build(definition: d, records: [:])
        let p = try pageJSON(l, 1, nil, view: ViewState(hidden: ["a", "b", "h"]))
        XCTAssertEqual(summary(p), "e0@0[] a@0[] h@0[] e1@0[] b@0[] e2@0[]")
        XCTAssertNil(p["nextPageToken"])
        XCTAssertEqual(p["itemsBefore"], 0)
        XCTAssertEqual(p["itemsAfter"], 0)
    }

    func testTokensAreBoundAndValidated() throws {
        let l = ListSnapshot.build(definition: d, records: [:])
        let p = try l.page(size: 1, token: nil, view: ViewState(), binding: PageBinding(list: "l", view: "v1"))
        let t = try XCTUnwrap(p.nextPageToken)
        XCTAssertTrue(t.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F })
        XCTAssertNoThrow(try l.page(size: 1, token: t, view: ViewState(), binding: PageBinding(list: "l", view: "v1")))
        for b in [PageBinding(list: "l", view: "v2"), PageBinding(list: "l", view: nil), PageBinding(list: "m", view: "v1")] {
            XCTAssertThrowsError(try l.page(size: 1, token: t, view: ViewState(), binding: b)) { XCTAssertEqual($0 as? PageTokenError, .wrongBinding) }
        }
        var tampered = Array(t.utf8)
        tampered[tampered.count / 2] = tampered[tampered.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        for bad in ["", "!!!", "AAAA", String(decoding: tampered, as: UTF8.self), t + "A"] {
            XCTAssertThrowsError(try l.page(size: 1, token: bad, view: ViewState(), binding: PageBinding(list: "l", view: "v1")), bad) {
                XCTAssertEqual($0 as? PageTokenError, .malformed)
            }
        }
    }

    /// A token whose position has another number of sort values than its spec's `sortBy` (which
    /// only a forged one has: a changed definition changes the binding) is malformed; it tripped
    /// an assertion (two orders disagreeing) and, in a release build, started a page anywhere.
    func testATokenWithAnotherCountOfSortValuesIsMalformed() throws {
        let d = definition(#"{"sections":[{"source":"c","key":"k","sortBy":[{"field":"n"}],"row":{}}]}"#)
        let recs = (0..<10).map { i -> JSONValue in ["id": .string("r\(i)"), "n": .int(Int64(i))] }
        let l = ListSnapshot.build(definition: d, records: ["c": recs])
        let order = RowOrder(descending: [false])
        for values in [[], [SortValue.int(3), .int(4)]] {
            let forged = PageToken.encode(spec: 0, rawKey: "k", sortKey: SortKey(values: values), rowID: "a", order: order,
                                          keyOrder: (rank: 0, descending: false), binding: binding, guess: 0)
            XCTAssertThrowsError(try l.page(size: 3, token: forged, view: ViewState(), binding: binding), "\(values)") {
                XCTAssertEqual($0 as? PageTokenError, .malformed)
            }
        }
        let fair = PageToken.encode(spec: 0, rawKey: "k", sortKey: SortKey(values: [.int(3)]), rowID: "r3", order: order,
                                    keyOrder: (rank: 0, descending: false), binding: binding, guess: 0)
        XCTAssertEqual(try l.page(size: 3, token: fair, view: ViewState(), binding: binding).itemsBefore, 4)
    }

    /// A token's guess (where the next page began) only saves a search: a token with another
    /// guess, or a version 2 token with none, reads the same page.
    func testATokensGuessChangesNoPage() throws {
        let d = definition(#"{"sections":[{"source":"c","groupBy":"g","sortBy":[{"field":"n"}],"row":{}}]}"#)
        let recs = (0..<300).map { i -> JSONValue in ["id": .string("r\(i)"), "g": i % 3 == 0 ? "a" : "b", "n": .int(Int64(i % 17))] }
        let l = ListSnapshot.build(definition: d, records: ["c": recs])
        /// The token's bytes with `guess` in place of its own (nil: as version 2 wrote it).
        func rewritten(_ token: String, guess: Int?) throws -> String {
            var b = try XCTUnwrap(Base64URL.decode(token))
            XCTAssertEqual(b[0], 3)
            b.removeLast(4)  // the checksum
            b.removeLast()  // the guess's last byte,
            while b.last! & 0x80 != 0 { b.removeLast() }  // and its others (the row id before it is ASCII)
            if var g = guess {
                while g >= 0x80 { b.append(UInt8(g & 0x7F) | 0x80); g >>= 7 }
                b.append(UInt8(g))
            } else {
                b[0] = 2
            }
            let c = PageToken.checksum(b)
            for k in 0..<4 { b.append(UInt8(truncatingIfNeeded: c >> (8 * UInt32(k)))) }
            return Base64URL.encode(b)
        }
        var token: String? = nil
        var pages = 0
        repeat {
            let page = try l.page(size: 7, token: token, view: ViewState(), binding: binding)
            if let token {
                for guess in [nil, 0, 1, 6, 7, 150, 5_000] as [Int?] {
                    let other = try l.page(size: 7, token: try rewritten(token, guess: guess), view: ViewState(), binding: binding)
                    XCTAssertEqual(other.entries, page.entries, "guess \(String(describing: guess))")
                    XCTAssertEqual(other.itemsBefore, page.itemsBefore)
                    XCTAssertEqual(other.nextPageToken, page.nextPageToken)
                }
            }
            token = page.nextPageToken
            pages += 1
        } while token != nil
        XCTAssertEqual(pages, 300 / 7 + 1)
    }

    func testTokenSurvivesDeletionOfLastDeliveredRow() throws {
        let d = definition(#"{"sections":[{"source":"c","groupBy":"g","sortBy":[{"field":"n"}],"row":{}}]}"#)
        var recs = (0..<10).map { i -> JSONValue in ["id": .string("r\(i)"), "g": i < 5 ? "a" : "b", "n": .int(Int64(i))] }
        var l = ListSnapshot.build(definition: d, records: ["c": recs])
        let p1 = try l.page(size: 3, token: nil, view: ViewState(), binding: binding)
        XCTAssertEqual(p1.entries.map(\.rowCount), [3])
        // Delete r2 (the last delivered row) and r3 (the next one); insert r25 sorting between them.
        l.apply(.delete(id: "r2"), collection: "c")
        l.apply(.delete(id: "r3"), collection: "c")
        l.apply(.upsert(["id": "r25", "g": "a", "n": 2.5]), collection: "c")
        let p2 = try l.page(size: 3, token: p1.nextPageToken, view: ViewState(), binding: binding)
        var w = JSONWriter()
        l.writePageAnswer(p2, list: "l", version: 1, into: &w)
        let ids = try JSONParser.parse(w.bytes)["sections"]!.arrayValue!.flatMap { $0["rows"]!.arrayValue!.map { $0["id"]!.stringValue! } }
        XCTAssertEqual(ids, ["r25", "r4", "r5"])
        XCTAssertEqual(p2.itemsBefore, 2)
        // Even when the token's whole section vanished.
        for i in 0..<5 { l.apply(.delete(id: "r\(i)"), collection: "c") }
        l.apply(.delete(id: "r25"), collection: "c")
        let p3 = try l.page(size: 3, token: p1.nextPageToken, view: ViewState(), binding: binding)
        XCTAssertEqual(p3.entries.first, Page.Entry(index: 0, rowOffset: 0, rowCount: 3))
        XCTAssertEqual(p3.itemsBefore, 0)
        recs.removeAll()
    }

    /// a [a0 a1 a2] (records where g = a) | e1 empty | b [b0 b1] (g = b): the rows moving between
    /// two page reads must not drop a section without rows from the walk, nor list it twice.
    func testARowlessSectionIsListedOnceWhenRowsChangeBetweenPages() throws {
        let d = definition(#"""
        {"sections":[
          {"source":"c","key":"a","where":{"g":"a"},"sortBy":[{"field":"n"}],"row":{}},
          {"key":"e1"},
          {"source":"c","key":"b","where":{"g":"b"},"sortBy":[{"field":"n"}],"row":{}}
        ]}
        """#)
        let recs: [JSONValue] = ["a0", "a1", "a2", "b0", "b1"].enumerated().map { i, id in
            ["id": .string(id), "g": .string(String(id.prefix(1))), "n": .int(Int64(i))]
        }
        func walk(_ l: ListSnapshot, size: Int, token: String?, view: ViewState = ViewState()) throws -> [String] {
            var token = token, seen: [String] = []
            repeat {
                let page = try l.page(size: size, token: token, view: view, binding: binding)
                seen += page.entries.map { "\(l.sections[$0.index].key)@\($0.rowOffset)+\($0.rowCount)" }
                token = page.nextPageToken
            } while token != nil
            return seen
        }
        let l = ListSnapshot.build(definition: d, records: ["c": recs])
        // The page ends inside a: e1 is for the next page.
        let p1 = try l.page(size: 2, token: nil, view: ViewState(), binding: binding)
        XCTAssertEqual(p1.entries.map(\.index), [0])

        // The rest of a deleted before the next read: e1 is still listed.
        var deleted = l
        deleted.apply(.delete(id: "a2"), collection: "c")
        XCTAssertEqual(try walk(deleted, size: 2, token: p1.nextPageToken), ["e1@0+0", "b@0+2"])

        // a hidden in the view before the next read (a client collapsing it while scrolling).
        var view = ViewState()
        view.hidden.insert(CodePointKey(l.sections[0].key))
        XCTAssertEqual(try walk(l, size: 2, token: p1.nextPageToken, view: view), ["e1@0+0", "b@0+2"])

        // The page ends at a's end and lists e1: a row added to a's end before the next read does
        // not list e1 again.
        let q1 = try l.page(size: 3, token: nil, view: ViewState(), binding: binding)
        XCTAssertEqual(q1.entries.map(\.index), [0, 1])
        var grown = l
        grown.apply(.upsert(["id": "a3", "g": "a", "n": 2.5]), collection: "c")
        XCTAssertEqual(try walk(grown, size: 3, token: q1.nextPageToken), ["a@3+1", "b@0+2"])

        // Unchanged, the walks are as before.
        XCTAssertEqual(try walk(l, size: 2, token: p1.nextPageToken), ["a@2+1", "e1@0+0", "b@0+1", "b@1+1"])
        XCTAssertEqual(try walk(l, size: 3, token: q1.nextPageToken), ["b@0+2"])

        // The page's section gone altogether (its rows deleted; a keyed section would vanish): e1 still listed.
        let keyed = definition(#"""
        {"sections":[
          {"source":"c","groupBy":"g","where":{"g":"a"},"sortBy":[{"field":"n"}],"row":{}},
          {"key":"e1"},
          {"source":"c","key":"b","where":{"g":"b"},"sortBy":[{"field":"n"}],"row":{}}
        ]}
        """#)
        var k = ListSnapshot.build(definition: keyed, records: ["c": recs])
        let r1 = try k.page(size: 2, token: nil, view: ViewState(), binding: binding)
        XCTAssertEqual(r1.entries.map(\.rowCount), [2])
        for id in ["a0", "a1", "a2"] { k.apply(.delete(id: id), collection: "c") }
        XCTAssertEqual(try walk(k, size: 2, token: r1.nextPageToken), ["e1@0+0", "b@0+2"])
    }
}
