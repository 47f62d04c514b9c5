import Foundation
import TestSupport
import XCTest

/// Every page of a list read, followed by `nextPageToken`: `page(token)` answers one page (the
/// first for `nil`). Returns the pages' version — each page must have the same, as no write runs
/// during a walk — and the outline (section keys and row ids; a section split over pages joined).
func walkPages(file: StaticString = #filePath, line: UInt = #line,
               _ page: (_ token: String?) throws -> [String: Any]) throws -> (version: Int, sections: [ChangesApplier.Section]) {
    var sections: [ChangesApplier.Section] = []
    var token: String?
    var version: Int?
    repeat {
        let answer = try page(token)
        let pageVersion: Int = try answer.value("version")
        if let version { XCTAssertEqual(pageVersion, version, "no writes run during a walk", file: file, line: line) } else { version = pageVersion }
        for section in try answer.value("sections", as: [[String: Any]].self) {
            let key: String = try section.value("key")
            let rows = try section.value("rows", as: [[String: Any]].self).map { try $0.value("id", as: String.self) }
            if sections.last?.key == key { sections[sections.count - 1].rows += rows } else { sections.append(.init(key: key, rows: rows)) }
        }
        token = answer["nextPageToken"] as? String
    } while token != nil
    return (try XCTUnwrap(version, file: file, line: line), sections)
}
