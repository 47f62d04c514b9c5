import XCTest
@testable import ListModel

final class JSONParserTests: XCTestCase {
    func testParsesAllValueKinds() throws {
        let v = try JSONParser.parse(#" { "a": [1, -2, 3.5, 1e3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"], "b": {} } "#)
        XCTAssertEqual(v["a"]?.arrayValue?.count, 8)
        XCTAssertEqual(v["a"]?.arrayValue?[0], .int(1))
        XCTAssertEqual(v["a"]?.arrayValue?[1], .int(-2))
        XCTAssertEqual(v["a"]?.arrayValue?[2], .double(3.5))
        XCTAssertEqual(v["a"]?.arrayValue?[3], .double(1000))
        XCTAssertEqual(v["a"]?.arrayValue?[7], .string("x\"\\/\u{8}\u{c}\n\r\té😀"))
        XCTAssertEqual(v["b"], .object(JSONObject()))
    }

    func testIntegersStayExact() throws {
        XCTAssertEqual(try JSONParser.parse("9223372036854775807"), .int(Int64.max))
        XCTAssertEqual(try JSONParser.parse("-9223372036854775808"), .int(Int64.min))
        XCTAssertEqual(try JSONParser.parse("9223372036854775808").description, "9223372036854775808", "kept as written")
        XCTAssertEqual(JSONValue.int(56).description, "56")
        XCTAssertEqual(JSONValue.double(56).description, "56")
    }

    private func assertError(_ bytes: [UInt8], _ message: String, at offset: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try JSONParser.parse(bytes), file: file, line: line) { e in
            guard let e = e as? JSONParseError else { return XCTFail("not a JSONParseError: \(e)", file: file, line: line) }
            XCTAssertEqual(e.message, message, file: file, line: line)
            XCTAssertEqual(e.offset, offset, file: file, line: line)
        }
    }

    func testRejectsInvalidUTF8() {
        assertError([0x22, 0xC3, 0x28, 0x22], "invalid UTF-8", at: 1)          // bad continuation
        assertError([0x22, 0xC0, 0xAF, 0x22], "invalid UTF-8", at: 1)          // overlong
        assertError([0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8", at: 1)    // surrogate
        assertError([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "invalid UTF-8", at: 1) // > U+10FFFF
        assertError([0x22, 0x61, 0xFF, 0x22], "invalid UTF-8", at: 2)
        assertError(Array(#"["\ud800"]"#.utf8), "unpaired surrogate escape", at: 2)
    }

    func testDepthLimit() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        XCTAssertNoThrow(try JSONParser.parse(ok))
        let bad = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        assertError(Array(bad.utf8), "nesting deeper than 64", at: 64)
        let badObj = String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65)
        XCTAssertThrowsError(try JSONParser.parse(badObj))
    }

    func testRejectsTrailingGarbageAndBadSyntax() {
        assertError(Array("{} x".utf8), "unexpected trailing characters", at: 3)
        assertError(Array("[1,]".utf8), "unexpected character", at: 3)
        assertError(Array("01".utf8), "leading zero in number", at: 1)
        assertError(Array("".utf8), "unexpected end of input", at: 0)
        assertError(Array("{\"a\":1,\"a\":2}".utf8), "duplicate member name", at: 7)
        assertError(Array("\"a\nb\"".utf8), "control character in string", at: 2)
        assertError(Array("1e999".utf8), "number out of range", at: 0)
        assertError(Array("[1 2]".utf8), "expected ',' or ']'", at: 3)
        assertError(Array("tru".utf8), "unexpected end of input", at: 3)
        assertError(Array("\"\\x\"".utf8), "invalid escape", at: 1)
        assertError(Array("-".utf8), "invalid number", at: 1)
        assertError([0xEF, 0xBB, 0xBF, 0x31], "unexpected character", at: 0)
    }

    func testDuplicateDetectionInLargeObjects() {
        var members = (0..<40).map { "\"k\($0)\":\($0)" }
        XCTAssertNoThrow(try JSONParser.parse("{" + members.joined(separator: ",") + "}"))
        members.append("\"k3\":1")
        XCTAssertThrowsError(try JSONParser.parse("{" + members.joined(separator: ",") + "}"))
    }

    func testObjectEqualityIgnoresOrderAndNumbersCompareNumerically() throws {
        XCTAssertEqual(try JSONParser.parse(#"{"a":1,"b":2}"#), try JSONParser.parse(#"{"b":2.0,"a":1}"#))
        XCTAssertNotEqual(try JSONParser.parse(#"{"a":1}"#), try JSONParser.parse(#"{"a":"1"}"#))
        XCTAssertEqual(Set<JSONValue>([.int(1), .double(1)]).count, 1)
    }

    func testParsesFromRawBuffer() throws {
        let bytes = Array(#"{"id":"p1","n":[1,2]}"#.utf8)
        let v = try bytes.withUnsafeBytes { try JSONParser.parse($0) }
        XCTAssertEqual(v["id"], "p1")
    }

    /// Short plain decimals take a fast path (an integer over a power of ten): the value must be
    /// exactly what `Double(text)` gives, and the kind (double or kept text) unchanged.
    func testShortDecimalsParseAsDoubleDoes() throws {
        var texts = ["0.1", "-0.1", "0.0", "-0.0", "12.34", "-12.34", "123.45", "999999999999.999", "0.000000000000001",
                     "123456789012.345", "1234567890123.456", "0.30000000000000004", "12.50", "00.5", "1.0", "9007199254740.993",
                     "0.12345678901234567890123", "1.5e0", "2.5E+1"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let integer = UInt64.random(in: 0..<1_000_000, using: &generator)
            let digits = Int.random(in: 1...12, using: &generator)
            let fraction = String(UInt64.random(in: 0..<1_000_000_000_000, using: &generator))
            let padded = String(repeating: "0", count: max(0, digits - fraction.count)) + fraction.prefix(digits)
            texts.append((Bool.random(using: &generator) ? "-" : "") + "\(integer).\(padded)")
        }
        for source in texts {
            guard let expected = Double(source) else { continue }
            let parsed: JSONValue
            do { parsed = try JSONParser.parse(source) } catch {
                XCTAssertTrue(source.hasPrefix("00"), "\(source): \(error)")   // a leading zero is refused
                continue
            }
            switch parsed {
            case .double(let d):
                XCTAssertEqual(d.bitPattern, expected.bitPattern, source)
            case .number(let n):
                XCTAssertEqual(n.text, source)
                var w = JSONWriter(); w.double(expected)
                XCTAssertNotEqual(text(w), source, "kept as text only when the double does not write back as it")
            default:
                XCTFail("\(source) parsed as \(parsed)")
            }
        }
    }

    /// Objects inside objects (and arrays) keep their own members, and duplicate names are
    /// found per object, not across the nesting.
    func testNestedObjectsKeepTheirOwnMembers() throws {
        let v = try JSONParser.parse(#"{"a":1,"b":{"a":2,"c":[{"a":3},{"d":4}]},"e":{},"f":5}"#)
        XCTAssertEqual(v.objectValue?.keys, ["a", "b", "e", "f"])
        XCTAssertEqual(v["b"]?.objectValue?.keys, ["a", "c"])
        XCTAssertEqual(v["b"]?["a"], .int(2))
        XCTAssertEqual(v["b"]?["c"]?.arrayValue?.map { $0.objectValue?.keys ?? [] }, [["a"], ["d"]])
        XCTAssertEqual(v["e"], .object(JSONObject()))
        XCTAssertEqual(v["f"], .int(5))
        XCTAssertThrowsError(try JSONParser.parse(#"{"a":{"b":1,"b":2}}"#))
        XCTAssertThrowsError(try JSONParser.parse(#"{"a":{"b":1},"a":2}"#))
        let wide = (0..<20).map { "\"k\($0)\":{\"k\($0)\":\($0)}" }.joined(separator: ",")
        let parsed = try JSONParser.parse("{" + wide + "}")
        XCTAssertEqual(parsed.objectValue?.count, 20)
        XCTAssertEqual(parsed["k19"]?["k19"], .int(19))
    }

    /// `{"k0":0,…,"k15":15,"<last>":16}`.
    private func manyNames(last: String) -> String {
        "{" + (0..<16).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"\(last)\":16}"
    }

    /// Strings are scanned 8 bytes at a time while plain ASCII: whatever stops the scan (a quote,
    /// an escape, a control byte, UTF-8 beyond ASCII, the end of input) is found at every offset.
    func testStringsStopAtEveryKindOfByteAtEveryOffset() throws {
        for k in 0..<24 {
            let run = String(repeating: "a", count: k)
            func parse(_ inner: String) throws -> JSONValue { try JSONParser.parse(Array(("\"" + inner + "\"").utf8)) }
            XCTAssertEqual(try parse(run), .string(run))
            XCTAssertEqual(try parse(run + #"\"b"#), .string(run + "\"b"))
            XCTAssertEqual(try parse(run + #"\nbbbbbbbbb"#), .string(run + "\nbbbbbbbbb"))
            XCTAssertEqual(try parse(run + "ébbbbbbbbb"), .string(run + "ébbbbbbbbb"))
            XCTAssertEqual(try parse(run + "\u{7F}bbbbbbbbb"), .string(run + "\u{7F}bbbbbbbbb"))
            assertError(Array(("\"" + run + "\u{01}bbbbbbbbb\"").utf8), "control character in string", at: 1 + k)
            assertError(Array(("\"" + run).utf8), "unterminated string", at: 1 + k)
            assertError(Array("\"".utf8) + Array(run.utf8) + [0xC3, 0x28] + Array("bbbbbbbbb\"".utf8), "invalid UTF-8", at: 1 + k)
        }
    }

    /// Documents parsed with shared member names give what ``JSONParser/parse(_:)`` gives, whatever
    /// names the earlier documents had at the same positions (longer, shorter, escaped, reordered).
    func testSharedMemberNamesParseAsAlone() throws {
        let documents = [
            #"{"id":"a","owner":"u1","total":1.5}"#,
            #"{"id":"b","owner":"u2","total":2}"#,
            #"{"idx":"c","own":"u3","total":3,"extra":{"id":1}}"#,
            #"{"id":"d","owner":"u4"}"#,
            #"{"i\u0064":"e","owner":"u5"}"#,
            #"{"id":"f","\u006fwner":"u6"}"#,
            #"{"owner":"u7","id":"g"}"#,
            #"{ "id" : "h" , "owner":"u8"}"#,
            #"[{"id":"i"}]"#,
            #"{"id":"j","owner":"u9","id":"dup"}"#,
            #"{"id":"k","owner":"u10","total":"x\"y"}"#,
            #"{"id":"l","owner\"":"u11"}"#,
            #"{"id":"m","owner":"u12","é":"ü"}"#,
            #"{"id":"n","owner":"u13","é":"ü"}"#,
            #"{"id":"o","owner"#,
            #"{}"#,
            #"{"id":"p"}"#,
            // A remembered name that repeats an earlier one is checked even when all matched.
            #"{"id":"q","owner":"u14","id":"r"}"#,
            #"{"id":"q","owner":"u14","id":"r"}"#,
            #"{"id":"s","owner":"u15","total":4}"#,
            // Past 15 names (the set of names seen), matched and not.
            manyNames(last: "k3"), manyNames(last: "k3"), manyNames(last: "k16"), manyNames(last: "k16"), manyNames(last: "k3"),
        ]
        func outcome(_ body: () throws -> JSONValue) -> String {
            do { return "value \(try body().description)" } catch { return "error \(error)" }
        }
        var names = JSONParser.MemberNames()
        for document in documents {
            let bytes = Array(document.utf8)
            XCTAssertEqual(outcome { try JSONParser.parse(bytes) }, outcome { try JSONParser.parse(bytes, names: &names) }, document)
        }
        XCTAssertTrue(outcome { try JSONParser.parse(Array(documents[14].utf8), names: &names) }.hasPrefix("error"), "a cut document fails")
    }
}

final class JSONWriterTests: XCTestCase {
    func testEscaping() {
        var w = JSONWriter()
        w.string("a\"b\\c\n\r\t\u{8}\u{c}\u{1}\u{1f}/é😀\u{2028}")
        XCTAssertEqual(text(w), #""a\"b\\c\n\r\t\b\f\u0001\u001f/é😀"# + "\u{2028}\"")
    }

    func testStructureAndCommas() {
        var w = JSONWriter()
        w.beginObject()
        w.key("a"); w.int(1)
        w.key("b"); w.beginArray(); w.int(1); w.null(); w.bool(true); w.bool(false); w.beginObject(); w.endObject(); w.endArray()
        w.key("c\"x" as String); w.string("y")
        w.key("d"); w.rawValue(Array("[1]".utf8))
        w.endObject()
        XCTAssertEqual(text(w), #"{"a":1,"b":[1,null,true,false,{}],"c\"x":"y","d":[1]}"#)
    }

    func testNumbersShortestAndLocaleFree() {
        func t(_ d: Double) -> String { var w = JSONWriter(); w.double(d); return text(w) }
        XCTAssertEqual(t(56), "56")
        XCTAssertEqual(t(-56), "-56")
        XCTAssertEqual(t(0.1), "0.1")
        XCTAssertEqual(t(1234.5), "1234.5")
        XCTAssertEqual(t(1e-7), "1e-7")
        XCTAssertEqual(t(1e20), "1e+20")
        XCTAssertEqual(t(.nan), "null")
        XCTAssertEqual(t(.infinity), "null")
        var w = JSONWriter(); w.int64(Int64.min)
        XCTAssertEqual(text(w), "-9223372036854775808")
        for d in [0.1, 1e-7, 1e20, 123456.789, 5e-324, 1.7976931348623157e308] {
            XCTAssertEqual(try JSONParser.parse(t(d)).doubleValue, d)
        }
    }

    func testDeepNestingBeyond64() throws {
        var v: JSONValue = 1
        for _ in 0..<70 { v = .array([v, 2]) }
        var w = JSONWriter()
        w.value(v)
        let s = text(w)
        XCTAssertTrue(s.hasPrefix("[[[["))
        XCTAssertTrue(s.hasSuffix(",2],2]"))
        XCTAssertEqual(s.filter { $0 == "," }.count, 70)
    }

    func testRoundTrip() throws {
        let src = #"{"a":[1,2.5,"x",{"b":null}],"c":true}"#
        var w = JSONWriter()
        w.value(try JSONParser.parse(src))
        XCTAssertEqual(text(w), src)
    }

}
