import Foundation
import XCTest

/// Every public declaration of ListModel and of the JSONOutput it re-exports carries a `///` doc
/// comment (an embeddable library's API is read from its doc comments).
final class PublicDocsTests: XCTestCase {
    func testEveryPublicDeclarationHasADocComment() throws {
        var checked = 0
        var missing: [String] = []
        for module in ["ListModel", "JSONOutput"] {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/\(module)").standardized
        guard let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            return XCTFail("cannot list \(sources.path)")
        }
        for case let url as URL in files where url.pathExtension == "swift" {
            let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
            for (i, line) in lines.enumerated() {
                var words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
                while let w = words.first, w.hasPrefix("@") { words.removeFirst() }
                guard words.first == "public", words.dropFirst().first != "import" else { continue }
                checked += 1
                var j = i - 1
                while j >= 0, lines[j].trimmingCharacters(in: .whitespaces).hasPrefix("@") { j -= 1 }
                if j < 0 || !lines[j].trimmingCharacters(in: .whitespaces).hasPrefix("///") {
                    missing.append("\(url.lastPathComponent):\(i + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        }
        XCTAssertGreaterThan(checked, 100, "found too few public declarations")
        XCTAssertEqual(missing, [], "public declarations without a doc comment")
    }
}
