import Foundation
@testable import SectionalService
import TestSupport
import XCTest

/// The JavaScript client is served as a browser loads it: /sectional.mjs, then every module it
/// imports, each resolved against the address of the module that names it.
final class JavaScriptClientModuleTests: XCTestCase {
    /// The relative specifiers a module names: `import … from '…'`, `export … from '…'`, and the
    /// JSDoc type imports `import('…')` (tsc follows those, so they are the client's modules too).
    private func specifiers(_ source: String) throws -> [String] {
        let pattern = try NSRegularExpression(pattern: #"(?:\bfrom\s*|\bimport\(\s*)'([^']+)'"#)
        let range = NSRange(source.startIndex..., in: source)
        return pattern.matches(in: source, range: range).compactMap { Range($0.range(at: 1), in: source).map { String(source[$0]) } }
    }

    func testEveryModuleTheEntryPointImportsTransitivelyIsServedAsJavaScript() throws {
        let app = try TestApp()
        var toFetch = ["/sectional.mjs"], reached: Set<String> = []
        while let path = toFetch.popLast() {
            guard reached.insert(path).inserted else { continue }
            let answer = try app.get(path)
            XCTAssertEqual(answer.status, 200, "\(path): \(answer.text)")
            XCTAssertEqual(answer.header("Content-Type"), "text/javascript; charset=utf-8", path)
            XCTAssertNotNil(answer.header("ETag"), path)
            for specifier in try specifiers(answer.text) {
                XCTAssertTrue(specifier.hasPrefix("./") || specifier.hasPrefix("../"), "\(path) imports \(specifier): not a module of the client")
                let resolved = try XCTUnwrap(URL(string: specifier, relativeTo: URL(string: "http://host\(path)")))
                toFetch.append(resolved.standardized.path)
            }
        }
        // The entry point and its modules: a split that served only the entry point would pass the loop.
        XCTAssertTrue(reached.contains("/sectional/errors.mjs") && reached.contains("/sectional/mirror.mjs"), "\(reached.sorted())")
        XCTAssertEqual(Set(DocumentRoutes.clientModules.map { "/sectional/\($0.name)" }), reached.subtracting(["/sectional.mjs"]),
                       "the modules served are those the entry point reaches")

        // The OpenAPI document names the same modules, and an unknown one is a problem.
        let document = try app.get("/openapi.json").json
        let operation = try XCTUnwrap(((document["paths"] as? [String: Any])?["/sectional/{module}"] as? [String: Any])?["get"] as? [String: Any])
        let parameter = try XCTUnwrap((operation["parameters"] as? [[String: Any]])?.first)
        let names = try XCTUnwrap((parameter["schema"] as? [String: Any])?["enum"] as? [String])
        XCTAssertEqual(Set(names.map { "/sectional/\($0)" }), reached.subtracting(["/sectional.mjs"]))
        let unknown = try app.get("/sectional/unknown.mjs")
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(unknown.header("Content-Type"), "application/problem+json")
    }
}
