import ListModel
import XCTest

final class MergePatchTests: XCTestCase {
    private func merge(_ patch: String, into target: String) throws -> JSONValue {
        MergePatch.apply(try JSONParser.parse(patch), to: try JSONParser.parse(target))
    }

    func testNestedObjectsMergeNullRemovesArraysReplace() throws {
        let merged = try merge(#"{"a":{"c":3,"b":null},"tags":["x"],"n":null,"new":1}"#,
                               into: #"{"id":"r","a":{"b":1,"keep":2},"tags":["p","q"],"n":5}"#)
        XCTAssertEqual(merged, try JSONParser.parse(#"{"id":"r","a":{"keep":2,"c":3},"tags":["x"],"new":1}"#))
        // Members keep their order; new ones are appended.
        XCTAssertEqual(merged.objectValue?.keys, ["id", "a", "tags", "new"])
    }

    /// The examples of RFC 7396 appendix A.
    func testTheRFCExamples() throws {
        let cases: [(String, String, String)] = [
            (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
            (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
            (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
            (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
            (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
            (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
            (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
            (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
            (#"{"a":"foo"}"#, "null", "null"),
            (#"{"a":"foo"}"#, #""bar""#, #""bar""#),
            (#"{"e":null}"#, #"{"a":1}"#, #"{"e":null,"a":1}"#),
            (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
            ("{}", #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
        ]
        for (target, patch, expected) in cases {
            XCTAssertEqual(try merge(patch, into: target), try JSONParser.parse(expected), "\(patch) into \(target)")
        }
    }

    /// A patch names members by code points: "cafe\u0301" (e and a combining acute) neither
    /// replaces nor removes "caf\u00e9" (a precomposed é), though Swift's `String` calls them equal.
    /// Patches applied together give what they give one by one: random patches (nulls, values,
    /// arrays, nested objects, names removed and named again) of random targets.
    func testPatchesAppliedTogetherEqualThemAppliedOneByOne() throws {
        var random = SystemRandomNumberGenerator()
        let names = ["a", "b", "c", "d"]
        func value(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 2 ? 4 : 6), using: &random) {
            case 0: return .null
            case 1: return .string(names.randomElement(using: &random)!)
            case 2: return .bool(Bool.random(using: &random))
            case 3: return .array([.string("x")])
            default: return .object(object(depth + 1))
            }
        }
        func object(_ depth: Int) -> JSONObject {
            JSONObject(names.shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random)).map { (key: $0, value: value(depth)) })
        }
        for round in 0..<2_000 {
            let target = object(0).filter { !$0.value.isNull }
            let patches = (0..<Int.random(in: 1...6, using: &random)).map { _ in object(0) }
            let oneByOne = patches.reduce(JSONObject(target)) { MergePatch.apply($1, to: $0) }
            let together = MergePatch.apply(patches, to: JSONObject(target))
            XCTAssertEqual(together, oneByOne, "round \(round)")
            XCTAssertEqual(together.keys, oneByOne.keys, "round \(round): member order")
            if together != oneByOne || together.keys != oneByOne.keys { return }
        }
    }

    func testNamesAreComparedByCodePoints() throws {
        let target = #"{"id":"r","caf\u00e9":"nfc","x":1}"#
        XCTAssertEqual(try merge(#"{"cafe\u0301":"nfd"}"#, into: target),
                       try JSONParser.parse(#"{"id":"r","caf\u00e9":"nfc","x":1,"cafe\u0301":"nfd"}"#))
        XCTAssertEqual(try merge(#"{"cafe\u0301":null}"#, into: target), try JSONParser.parse(target))
        XCTAssertEqual(try merge(#"{"caf\u00e9":null}"#, into: target), try JSONParser.parse(#"{"id":"r","x":1}"#))
    }
}
