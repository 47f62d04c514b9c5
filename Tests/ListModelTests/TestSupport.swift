import TestSupport
import XCTest
@testable import ListModel
import SectionalService   // the answers' envelopes

/// The seeded generator of TestSupport, visible to every file of this target.
typealias SplitMix64 = TestSupport.SplitMix64

func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONValue {
    do { return try JSONParser.parse(text) } catch {
        XCTFail("parse failed: \(error)", file: file, line: line)
        return .null
    }
}

/// Parses JSON bytes the model wrote; a parse failure fails the test (and gives `.null`).
func parse(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> JSONValue {
    do { return try JSONParser.parse(bytes) } catch {
        XCTFail("parse failed: \(error) in \(String(decoding: bytes, as: UTF8.self))", file: file, line: line)
        return .null
    }
}

func definition(_ json: String, name: String = "l", file: StaticString = #filePath, line: UInt = #line) -> ListDefinition {
    do { return try ListDefinitions.decode(name: name, parse(json, file: file, line: line)) } catch {
        XCTFail("definition failed: \(error)", file: file, line: line)
        fatalError()
    }
}

/// Errors of a definition expected to be invalid.
func definitionErrors(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> [DefinitionError] {
    do {
        _ = try ListDefinitions.decode(parse(json, file: file, line: line))
        XCTFail("expected errors", file: file, line: line)
        return []
    } catch {
        return error.errors
    }
}

func text(_ w: JSONWriter) -> String { String(decoding: w.bytes, as: UTF8.self) }

extension ListSnapshot {
    /// Outline + all rows, as JSON text (for comparing snapshots).
    func fullText(list: String = "l") -> String {
        var w = JSONWriter()
        w.beginArray()
        writeOutlineAnswer(list: list, version: 1, view: ViewState(), into: &w)
        writeFullContents(into: &w)
        w.int(duplicateRowCount)
        w.endArray()
        return text(w)
    }

    /// Parsed outline JSON.
    func outline(view: ViewState = ViewState()) -> JSONValue {
        var w = JSONWriter()
        writeOutlineAnswer(list: "l", version: 1, view: view, into: &w)
        return parse(w.bytes)
    }

    /// All rows (ids) per section, in order.
    var rowIDs: [[String]] {
        (0..<sectionCount).map { s in
            (0..<section(at: s)!.totalRowCount).map { location(section: s, row: $0, view: ViewState())!.rowID }
        }
    }

    /// Parsed row object at an index path.
    func rowJSON(_ s: Int, _ r: Int) -> JSONValue {
        var w = JSONWriter()
        writeRow(location(section: s, row: r, view: ViewState())!, into: &w)
        return parse(w.bytes)
    }

    var sectionKeys: [String] { (0..<sectionCount).map { section(at: $0)!.key } }
}

func records(_ json: String) -> [JSONValue] { parse(json).arrayValue! }

extension Dictionary where Key == String {
    /// The values in key order: `Dictionary.values` changes order from one process to the next
    /// (per-process hash seeds), which would make a seeded test's input unreproducible.
    var valuesByKey: [Value] { keys.sorted().map { self[$0]! } }
}
