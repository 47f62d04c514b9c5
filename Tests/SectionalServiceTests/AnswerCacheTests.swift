@testable import SectionalService
import TestSupport
import XCTest

final class AnswerCacheTests: XCTestCase {
    /// Renders an answer of `size` bytes, counting renders.
    private func answer(_ cache: AnswerCache, _ key: String, size: Int, renders: Counter) -> AnswerCache.Answer {
        cache.answer(for: AnswerCache.Key(kind: key)) { () -> AnswerCache.Answer in
            renders.increment()
            return AnswerCache.Answer(body: [UInt8](repeating: 0x20, count: size))
        }
    }

    func testTheCacheIsBoundedByBytesNotCount() {
        let cache = AnswerCache()
        let renders = Counter()
        let page = 1 << 20
        for i in 0..<20 { _ = answer(cache, "page\(i)", size: page, renders: renders) }
        XCTAssertEqual(renders.value, 20)
        XCTAssertLessThanOrEqual(cache.usage.bytes, AnswerCache.listBudget, "20 pages of 1 MiB do not all stay")
        XCTAssertLessThan(cache.usage.entries, 20)
        _ = answer(cache, "page19", size: page, renders: renders)
        XCTAssertEqual(renders.value, 20, "the latest answer is still cached")
        _ = answer(cache, "page0", size: page, renders: renders)
        XCTAssertEqual(renders.value, 21, "an old one was dropped and is rendered again")
    }

    func testAFullCacheKeepsTheLatestAnswersThatFit() {
        let cache = AnswerCache()
        let renders = Counter()
        let page = 1 << 20
        for i in 0..<20 { _ = answer(cache, "page\(i)", size: page, renders: renders) }
        // 1 MiB bodies with their keys and overhead: 9 fit in 10 MiB. Evicting the oldest one at a
        // time keeps 9; starting over when full would keep 2 here (pages 18 and 19).
        XCTAssertEqual(cache.usage.entries, 9)
        for i in 11..<20 { _ = answer(cache, "page\(i)", size: page, renders: renders) }
        XCTAssertEqual(renders.value, 20, "the 9 latest answers are all still cached")
    }

    /// Keys are hashed once when made; each of their parts still tells answers apart, and a key
    /// made again from the same parts finds the answer.
    func testEveryPartOfAKeyPicksItsOwnAnswer() {
        let cache = AnswerCache()
        let renders = Counter()
        let keys = [AnswerCache.Key(kind: "page", size: 50, token: "A"), AnswerCache.Key(kind: "page", size: 50, token: "B"),
                    AnswerCache.Key(kind: "page", size: 50), AnswerCache.Key(kind: "page", size: 20, token: "A"),
                    AnswerCache.Key(kind: "page", view: 7, size: 50, token: "A"),
                    AnswerCache.Key(kind: "page", viewID: "mine", size: 50, token: "A"), AnswerCache.Key(kind: "outline")]
        func body(_ key: AnswerCache.Key) -> [UInt8] {
            cache.answer(for: key) { () -> AnswerCache.Answer in
                renders.increment()
                return AnswerCache.Answer(body: Array("\(key.kind) \(key.view) \(key.viewID ?? "-") \(key.size) \(key.token ?? "-")".utf8))
            }.body
        }
        let first = keys.map(body)
        XCTAssertEqual(renders.value, keys.count)
        XCTAssertEqual(Set(first).count, keys.count)
        let again = [AnswerCache.Key(kind: "page", size: 50, token: "A"), AnswerCache.Key(kind: "page", viewID: "mine", size: 50, token: "A")]
        XCTAssertEqual(again.map(body), [first[0], first[5]])
        XCTAssertEqual(renders.value, keys.count, "keys made again from the same parts find their answers")
    }

    func testAnAnswerLargerThanTheBudgetIsServedButNotKept() {
        let cache = AnswerCache()
        let renders = Counter()
        _ = answer(cache, "small", size: 100, renders: renders)
        let huge = answer(cache, "huge", size: AnswerCache.listBudget + 1, renders: renders)
        XCTAssertEqual(huge.body.count, AnswerCache.listBudget + 1)
        _ = answer(cache, "huge", size: AnswerCache.listBudget + 1, renders: renders)
        XCTAssertEqual(renders.value, 3, "rendered each time")
        XCTAssertEqual(cache.usage.entries, 1, "and the small answer was not pushed out for it")
        _ = answer(cache, "small", size: 100, renders: renders)
        XCTAssertEqual(renders.value, 3)
    }

    func testCachedAnswersAreCountedInMetrics() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        XCTAssertEqual(try app.get("/v1/lists/people/rows?pageSize=1").status, 200)
        let metrics = try app.get("/metrics").text
        XCTAssertEqual(metricValue(metrics, "sectional_answer_cache_entries"), 1, metrics)
        XCTAssertGreaterThan(metricValue(metrics, "sectional_answer_cache_bytes") ?? 0, 100, metrics)
    }

    /// A `changes` answer is computed once per version, `since`, view and `maxChanges`, and kept
    /// with the version's other answers: every client that follows the list asks it at once
    /// (`make bench`'s 999-write diff was computed for every request, 736 a second).
    func testAChangesAnswerIsKeptForItsVersionSinceViewAndLimit() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let since = try app.get("/v1/lists/people").json.value("version", as: Int.self)
        try app.seed([("p2", "Bo", "Design")])
        func entries() throws -> Double? { metricValue(try app.get("/metrics").text, "sectional_answer_cache_entries") }
        let before = try entries() ?? 0
        let first = try app.get("/v1/lists/people/changes?since=\(since)")
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(try entries(), before + 1, "kept")
        let again = try app.get("/v1/lists/people/changes?since=\(since)")
        XCTAssertEqual(again.body, first.body)
        XCTAssertEqual(try entries(), before + 1, "served from the cache, not kept twice")
        XCTAssertEqual(try app.get("/v1/lists/people/changes?since=\(since)&maxChanges=0").json["reload"] as? Bool, true,
                       "another limit, another answer")
        let view = try app.createView(#"{"hidden":["Design"]}"#)
        let hidden = try app.get("/v1/lists/people/changes?since=\(since)&view=\(view)")
        XCTAssertNotEqual(hidden.body, first.body, "another view, another answer")
        XCTAssertEqual(try entries(), before + 3)
    }

    /// A list's other languages keep a list's answers, as its first does: with a partition's
    /// 64 KiB, German pages past the first few were rendered again on every read.
    func testAListInAnotherLanguageKeepsAListsBudgetOfAnswers() throws {
        let app = try TestApp(config: LanguageTests.config)
        let lists = try XCTUnwrap(app.server.lists)
        let english = try XCTUnwrap(lists.list("shop"))
        let german = try XCTUnwrap(lists.localized(english, language: "de"))
        XCTAssertEqual(german.language, "de")
        XCTAssertEqual(english.answers.budget, AnswerCache.listBudget)
        XCTAssertEqual(german.answers.budget, AnswerCache.listBudget)
    }
}
