import XCTest
@testable import ListModel

/// Numbers are kept as written and ordered exactly; the sort order is total over every JSON value.
final class NumberOrderTests: XCTestCase {
    /// Texts that neither `Int64` nor `Double` writes back the same are kept verbatim.
    func testNumbersRoundTripAsWritten() throws {
        for text in ["9223372036854775808", "-9223372036854775809", "1.50", "1e2", "1E+2", "-0", "-0.0", "0.0",
                     "9007199254740993.0", "9007199254740992.0", "123456789012345678901234567890", "1e-400",
                     "0.1000000000000000055511151231257827021181583404541015625", "2.0", "1e308", "5e-324",
                     "0.1", "1e-7", "123.25", "-0.5", "1.5e+300", "9223372036854775807", "-9223372036854775808", "56"] {
            let v = try JSONParser.parse(text)
            XCTAssertTrue(v.isNumber, text)
            XCTAssertEqual(v.description, text, "written back as written")
            XCTAssertEqual(try JSONParser.parse(v.description), v)
        }
        XCTAssertEqual(try JSONParser.parse("0.5"), .double(0.5))
        if case .double = try JSONParser.parse("0.1") {} else { XCTFail("canonical text stays a Double") }
        if case .number = try JSONParser.parse("9223372036854775808") {} else { XCTFail("2^63 is kept as text") }
        XCTAssertThrowsError(try JSONParser.parse("1e400"))
        XCTAssertThrowsError(try JSONParser.parse("1e-10000000000000000"), "absurd exponents are out of range")
        XCTAssertEqual(try JSONParser.parse("0e-10000000000000000"), .int(0))
    }

    /// Equality is by exact value across `.int`, `.double` and `.number`.
    func testEqualityIsExact() throws {
        func p(_ t: String) throws -> JSONValue { try JSONParser.parse(t) }
        XCTAssertEqual(try p("9007199254740992.0"), .int(9_007_199_254_740_992))
        XCTAssertNotEqual(try p("9007199254740993.0"), .int(9_007_199_254_740_992))
        XCTAssertEqual(try p("9007199254740993.0"), .int(9_007_199_254_740_993))
        XCTAssertNotEqual(try p("9223372036854775808"), .double(9_223_372_036_854_775_808))   // the double is 9.223372036854776e18
        XCTAssertEqual(try p("9223372036854776000"), .double(9_223_372_036_854_775_808))
        XCTAssertEqual(try p("1.50"), .double(1.5))
        XCTAssertEqual(try p("1e2"), .int(100))
        XCTAssertEqual(try p("-0"), .int(0))
        XCTAssertEqual(try p("-0.0"), .double(0))
        XCTAssertNotEqual(try p("1e-400"), .int(0))
        XCTAssertNotEqual(try p("0.1000000000000000055511151231257827021181583404541015625"), .double(0.1))
        XCTAssertEqual(Set<JSONValue>([try p("1.50"), .double(1.5), try p("15e-1"), .int(2), try p("2.0")]).count, 2)
        XCTAssertEqual(try p("9223372036854775808").intValue, nil)
        XCTAssertEqual(try p("9223372036854775807.0").intValue, Int64.max)
        XCTAssertEqual(try p("-92233720368547758.08e2").intValue, Int64.min)
        XCTAssertEqual(try p("1.5").intValue, nil)
    }

    /// The parser's quick "writes back the same" answer agrees with formatting and comparing.
    func testWritesBackFastPathAgreesWithFormatting() {
        let seed: UInt64 = 77
        var rng = SplitMix64(seed: seed)
        for _ in 0..<20_000 {
            var text = Bool.random(using: &rng) ? "-" : ""
            let intDigits = Int.random(in: 0...16, using: &rng)
            if intDigits == 0 { text += "0" } else {
                text += String(Int.random(in: 1...9, using: &rng))
                for _ in 1..<intDigits { text += String(Int.random(in: 0...9, using: &rng)) }
            }
            text += "."
            for _ in 0..<Int.random(in: 0...4, using: &rng) where intDigits == 0 { text += "0" }
            for _ in 0..<Int.random(in: 1...17, using: &rng) { text += String(Int.random(in: 0...9, using: &rng)) }
            guard let d = Double(text) else { continue }
            var out: [UInt8] = []
            JSONNumberText.appendDouble(d, to: &out)
            let expected = out.elementsEqual(text.utf8)
            let bytes = Array(text.utf8)
            XCTAssertEqual(bytes.withUnsafeBufferPointer { JSONNumberText.writesBack(d, as: $0) }, expected, "seed \(seed): \(text)")
        }
    }

    /// Numbers order by exact value, never through `Double`.
    func testNumbersCompareExactly() throws {
        func v(_ t: String) throws -> SortValue { SortValue(try JSONParser.parse(t)) }
        func c(_ a: String, _ b: String) throws -> Int { SortValue.compare(try v(a), try v(b), descending: false) }
        XCTAssertEqual(try c("9007199254740992", "9007199254740993"), -1)
        XCTAssertEqual(try c("9007199254740992.0", "9007199254740993"), -1)
        XCTAssertEqual(try c("9007199254740992.0", "9007199254740992"), 0)
        XCTAssertEqual(try c("9007199254740993.0", "9007199254740992"), 1)
        XCTAssertEqual(try c("9223372036854775807", "9223372036854775808"), -1)
        XCTAssertEqual(try c("9223372036854775808", "9.223372036854776e18"), -1)
        XCTAssertEqual(try c("-0", "0"), 0)
        XCTAssertEqual(try c("-0.0", "0"), 0)
        XCTAssertEqual(try c("1e-400", "0"), 1)
        XCTAssertEqual(try c("-1e-400", "-0"), -1)
        XCTAssertEqual(try c("5e-324", "1e-400"), 1)
        XCTAssertEqual(try c("0.1", "0.1000000000000000055511151231257827021181583404541015625"), -1)
        XCTAssertEqual(try c("1e308", "1.0e308"), 0)
        XCTAssertEqual(try c("true", "-1e308"), -1, "booleans before numbers")
        XCTAssertEqual(try c("1e308", "\"\""), -1, "numbers before strings")
        XCTAssertEqual(SortValue.compare(.string(""), .missing, descending: true), -1, "missing last either way")
        XCTAssertEqual(SortValue(.double(.nan)), .missing, "non-finite doubles are written as null")
    }

    /// Adversarial values of every kind (big integers, -0, 1e308, decimals near 2^53 and 2^63).
    static func adversarialValues(seed: UInt64) -> [JSONValue] {
        var texts = ["0", "-0", "0.0", "-0.0", "1", "-1", "0.1", "0.30000000000000004", "1e308", "-1e308", "1.7976931348623157e308",
                     "5e-324", "1e-400", "-1e-400", "9007199254740991", "9007199254740992", "9007199254740993", "9007199254740994",
                     "9007199254740992.0", "9007199254740993.0", "9007199254740992.5", "-9007199254740993", "-9007199254740992.0",
                     "9223372036854775807", "9223372036854775808", "9223372036854775807.5", "9223372036854775806.99",
                     "9.223372036854776e18", "9223372036854776000", "-9223372036854775808", "-9223372036854775809",
                     "-9223372036854775808.0", "18446744073709551616", "1e19", "1.50", "1.5", "1e2", "100",
                     "0.1000000000000000055511151231257827021181583404541015625", "true", "false", "null", "[]", "{}",
                     "\"\"", "\"a\"", "\"9007199254740993\"", "\"é\""]
        var rng = SplitMix64(seed: seed)
        for _ in 0..<40 {
            let base = ["9007199254740992", "9223372036854775807", "4503599627370496"][Int.random(in: 0..<3, using: &rng)]
            let delta = Int.random(in: -3...3, using: &rng)
            let n = (Int64(base) ?? 0) &+ Int64(delta)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: texts.append(String(n))
            case 1: texts.append(String(n) + ".0")
            case 2: texts.append(String(n) + "." + String(Int.random(in: 1...99, using: &rng)))
            default: texts.append((Bool.random(using: &rng) ? "-" : "") + String(n) + "e" + String(Int.random(in: -20...2, using: &rng)))
            }
        }
        var values = texts.compactMap { try? JSONParser.parse($0) }
        values += [.double(9_007_199_254_740_992), .double(9_223_372_036_854_775_808), .double(-0.0), .int(Int64.max), .int(Int64.min),
                   .double(0.1), .double(1e308)]
        return values
    }

    /// The sort order is a total order consistent with equality: antisymmetric, transitive,
    /// `desc` its exact reverse (missing excepted), and 0 exactly for equal values.
    func testSortOrderIsTotalAndConsistentWithEquality() {
        let seed: UInt64 = 2053
        let values = NumberOrderTests.adversarialValues(seed: seed)
        let sv = values.map { SortValue($0) }
        let n = sv.count
        var cmp = [[Int]](repeating: [Int](repeating: 0, count: n), count: n)
        for i in 0..<n {
            for j in 0..<n {
                cmp[i][j] = SortValue.compare(sv[i], sv[j], descending: false)
                XCTAssertTrue([-1, 0, 1].contains(cmp[i][j]))
                if sv[i] != .missing && sv[j] != .missing {
                    XCTAssertEqual(SortValue.compare(sv[i], sv[j], descending: true), -cmp[i][j], "seed \(seed): \(values[i]) \(values[j])")
                    XCTAssertEqual(cmp[i][j] == 0, values[i] == values[j], "seed \(seed): \(values[i]) vs \(values[j])")
                    if values[i] == values[j] { XCTAssertEqual(values[i].hashValue, values[j].hashValue, "\(values[i])") }
                }
            }
        }
        for i in 0..<n {
            for j in 0..<n {
                XCTAssertEqual(cmp[i][j], -cmp[j][i], "seed \(seed): antisymmetry \(values[i]) \(values[j])")
                for k in 0..<n where cmp[i][j] <= 0 && cmp[j][k] <= 0 {
                    XCTAssertLessThanOrEqual(cmp[i][k], 0, "seed \(seed): transitivity \(values[i]) ≤ \(values[j]) ≤ \(values[k])")
                    if cmp[i][j] < 0 || cmp[j][k] < 0 {
                        XCTAssertLessThan(cmp[i][k], 0, "seed \(seed): strict transitivity \(values[i]) \(values[j]) \(values[k])")
                    }
                }
            }
        }
    }

    /// The original symptom: 60 records whose sort values mix integers and decimals above 2^53.
    /// Every id resolves, a pageSize=1 walk visits each row once, deletes and re-adds keep one
    /// row each, and incremental updates equal a fresh build.
    func testMixedBigNumbersKeepTheListConsistent() throws {
        let d = definition(#"{"sections":[{"source":"a","key":"all","sortBy":[{"field":"v"}],"row":{"title":"{v}"}}]}"#)
        for seed: UInt64 in 1...8 {
            var rng = SplitMix64(seed: seed)
            let texts = ["9007199254740992", "9007199254740993", "9007199254740992.0"]
            var store: [String: JSONValue] = [:]
            func record(_ id: String) -> JSONValue {
                parse("{\"id\":\"\(id)\",\"v\":\(texts[Int.random(in: 0..<3, using: &rng)])}")
            }
            // Built one write at a time (binary insertion is where a bad order corrupts rows).
            var list = ListSnapshot.build(definition: d, records: ["a": []])
            for i in 0..<60 {
                let r = record("r\(i)")
                store["r\(i)"] = r
                list.apply(.upsert(r), collection: "a")
            }
            func check(_ step: String) throws {
                let ids = list.rowIDs.flatMap { $0 }
                XCTAssertEqual(ids.sorted(), store.keys.sorted(), "seed \(seed) \(step): each record listed once")
                for id in store.keys { XCTAssertNotNil(list.locate(rowID: id, view: ViewState()), "seed \(seed) \(step): \(id) resolves") }
                XCTAssertEqual(list.fullText(), ListSnapshot.build(definition: d, records: ["a": store.valuesByKey]).fullText(),
                               "seed \(seed) \(step): equals a fresh build")
                var walked: [String] = []
                var token: String? = nil
                repeat {
                    let page = try list.page(size: 1, token: token, view: ViewState(), binding: PageBinding(list: "l", view: nil))
                    for e in page.entries where e.rowCount > 0 {
                        walked.append(list.location(section: e.index, row: e.rowOffset, view: ViewState())?.rowID ?? "(no row)")
                    }
                    token = page.nextPageToken
                } while token != nil && walked.count <= 200
                XCTAssertEqual(walked, ids, "seed \(seed) \(step): a pageSize=1 walk visits each row once")
            }
            try check("built")
            for step in 0..<40 {
                let id = "r\(Int.random(in: 0..<60, using: &rng))"
                if store[id] != nil && Bool.random(using: &rng) {
                    store[id] = nil
                    list.apply(.delete(id: id), collection: "a")
                } else {
                    let r = record(id)
                    store[id] = r
                    list.apply(.upsert(r), collection: "a")
                }
                if step % 10 == 9 { try check("step \(step)") }
            }
        }
    }
}
