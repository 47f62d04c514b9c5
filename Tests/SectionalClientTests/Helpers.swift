import Foundation
import SectionalClient
import TestSupport
import XCTest

/// People records for the test list: bots when the name starts with "bot".
func person(_ id: String, _ name: String, _ team: String) -> JSON {
    var record: [String: JSON] = ["id": .string(id), "name": .string(name), "team": .string(team), "email": .string("\(id)@example.com")]
    if name.hasPrefix("bot") { record["kind"] = "bot" }
    return .object(record)
}

/// Items an async sequence produced, collected in the background, read while polling.
final class Collected<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    private var failure: Error?
    private var task: Task<Void, Never>?

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == T {
        task = Task { [weak self] in
            do {
                for try await item in sequence { self?.append(item) }
            } catch {
                self?.fail(error)
            }
        }
    }

    private func append(_ item: T) { lock.withLock { items.append(item) } }
    private func fail(_ error: Error) { lock.withLock { failure = error } }

    var all: [T] { lock.withLock { items } }
    var error: Error? { lock.withLock { failure } }

    func cancel() { task?.cancel() }

    /// Waits (polling, up to `seconds`) until some item satisfies `predicate`.
    func waitFor(_ what: String, seconds: Double = 20, file: StaticString = #filePath, line: UInt = #line,
                 _ predicate: (T) -> Bool) async {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if all.contains(where: predicate) { return }
            if let error { XCTFail("the sequence failed while waiting for \(what): \(error)", file: file, line: line); return }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        XCTFail("no \(what) within \(seconds) s; got \(all)", file: file, line: line)
    }
}

/// Asserts that `body` throws a ``SectionalError`` with `slug` and `status`.
func assertProblem<T>(_ slug: String, _ status: Int, file: StaticString = #filePath, line: UInt = #line,
                      _ body: () async throws -> T) async {
    do {
        _ = try await body()
        XCTFail("expected \(status) \(slug), got an answer", file: file, line: line)
    } catch let error as SectionalError {
        XCTAssertEqual(error.slug, slug, file: file, line: line)
        XCTAssertEqual(error.status, status, file: file, line: line)
        XCTAssertFalse(error.detail.isEmpty, "a problem carries a detail", file: file, line: line)
    } catch {
        XCTFail("expected a SectionalError, got \(error)", file: file, line: line)
    }
}

/// Every row `got` holds (a partly loaded mirror) equals the row at its place in `want` (a full
/// fetch): index path, tag location and accessibility identifier included; sections alike.
func assertLoadedRowsMatch(_ got: ListSnapshot, _ want: ListSnapshot, _ context: String,
                           file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(got.version, want.version, context, file: file, line: line)
    XCTAssertEqual(got.sections.map(\.section), want.sections.map(\.section), context, file: file, line: line)
    for (g, w) in zip(got.sections, want.sections) {
        XCTAssertEqual(g.rows.count, w.rows.count, context, file: file, line: line)
        for (r, row) in g.rows.enumerated() where row != nil && r < w.rows.count {
            XCTAssertEqual(row, w.rows[r], "\(context) \(w.section.key) row \(r)", file: file, line: line)
        }
    }
}

extension SplitMix64 {
    /// A number in `0..<bound`.
    mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
