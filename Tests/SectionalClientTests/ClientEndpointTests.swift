import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SectionalClient
import XCTest

/// Every endpoint of the API through SectionalClient, against a live server.
final class ClientEndpointTests: XCTestCase {
    private var server: LiveServer!
    private var client: SectionalClient!

    override func setUp() async throws {
        server = try LiveServer()
        client = SectionalClient(baseURL: server.url)
        try await client.collection("people").batch(upsert: [
            person("p1", "Ada", "Design"), person("p2", "Bob", "Design"), person("p3", "Cy", "Eng"),
            person("p4", "bot-1", "Eng"), person("p5", "Old", "Archived"),
        ])
    }

    override func tearDown() {
        client = nil
        server = nil
    }

    /// An empty token from the provider sends no `Authorization` (a `Bearer ` with nothing
    /// after it is a malformed request, 400), as the JavaScript client does.
    func testAnEmptyTokenSendsNoAuthorization() async throws {
        let lists = try await SectionalClient(baseURL: server.url, token: "").lists()
        XCTAssertEqual(lists.lists.map(\.name), ["people"])
    }

    /// The event stream is opened with the client session's configuration: a header the session
    /// adds (here a version the server refuses) goes with the stream as with every read.
    func testTheEventStreamUsesTheClientSessionsConfiguration() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["Sectional-Min-Version": "not-a-version"]
        let refused = SectionalClient(baseURL: server.url, session: URLSession(configuration: configuration)).list("people")
        await assertProblem("invalid-version", 400) { try await refused.outline() }
        await assertProblem("invalid-version", 400) {
            var events = refused.events().makeAsyncIterator()
            return try await events.next()
        }
    }

    func testListsOutlineAndPages() async throws {
        let lists = try await client.lists()
        XCTAssertEqual(lists.lists.map(\.name), ["people"])
        let list = client.list("people")
        let outline = try await list.outline()
        XCTAssertEqual(outline.sections.map(\.key), ["pinned", "Archived", "Design", "Eng"])
        XCTAssertEqual(outline.sections[1].hidden, true)
        XCTAssertEqual(outline.sections[2].title, "Design (2)")
        XCTAssertEqual(outline.rowCount, 5)
        XCTAssertEqual(outline.totalRowCount, 6)

        var ids: [String] = [], pages = 0
        for try await page in list.pages(size: 2) {
            pages += 1
            XCTAssertEqual(page.version, outline.version)
            ids += page.sections.flatMap { $0.rows.map(\.id) }
        }
        XCTAssertEqual(pages, 3)
        XCTAssertEqual(ids, ["me", "p1", "p2", "p3", "p4"])   // "Cy" sorts before "bot-1"
        let first = try await list.page(size: 2)
        XCTAssertEqual(first.itemsAfter, 3)
        XCTAssertNotNil(first.nextPageToken)
        let second = try await list.page(size: 2, token: first.nextPageToken)
        XCTAssertEqual(second.itemsBefore, 2)
    }

    func testRangesAndLookUps() async throws {
        let list = client.list("people")
        let range = try await list.rows(inSection: 3, start: 1, count: 5)
        XCTAssertEqual(range.section.rows.map(\.id), ["p4"])
        XCTAssertEqual(range.section.rows.first?.indexPath, ListIndexPath(section: 3, row: 1))
        XCTAssertEqual(range.section.rows.first?.accessibilityIdentifier, "cell_3_1")
        let teams = try await list.sections(ofType: "team")
        XCTAssertEqual(teams.sections, [1, 2, 3])
        let bot = try await list.indexPath(sectionType: "team", rowType: "bot")
        XCTAssertEqual(bot.row.id, "p4")
        XCTAssertEqual(bot.row.title, "bot-1 (bot)")
        let tagged = try await list.row(tag: 3)   // "me" holds tags 0–2; Archived's p5 holds 3–4
        XCTAssertEqual(tagged.row.id, "p5")
        XCTAssertTrue(tagged.hidden)
        let byID = try await list.row(id: "p2")
        XCTAssertEqual(byID.indexPath, ListIndexPath(section: 2, row: 1))
    }

    func testViewsAndChanges() async throws {
        let list = client.list("people")
        let defaults = try await list.createView()
        XCTAssertEqual(defaults.hidden, ["Archived"], "a view made without keys starts from the definition's defaults")
        let view = try await list.createView(hidden: ["Design"])
        XCTAssertEqual(view.hidden, ["Design"])
        let read = try await list.view(view.view)
        XCTAssertEqual(read, view)
        let shown = try await list.setHidden(false, section: 2, view: view.view)
        XCTAssertEqual(shown.section.key, "Design")
        XCTAssertFalse(shown.section.hidden)
        let toggled = try await list.toggle(section: 1, view: view.view)
        XCTAssertEqual(toggled.section.key, "Archived")
        XCTAssertTrue(toggled.section.hidden, "a view's hidden keys replace the defaults: Archived was shown")
        let outline = try await list.outline(view: view.view)
        XCTAssertEqual(outline.rowCount, 5)

        let before = outline.version
        try await client.collection("people").put("p6", person("p6", "Dee", "Eng"))
        let changes = try await list.changes(since: before, view: view.view)
        XCTAssertFalse(changes.reload)
        XCTAssertEqual(changes.from, before)
        XCTAssertGreaterThan(changes.to, before)
        XCTAssertEqual(changes.rows.inserted, [ListIndexPath(section: 3, row: 1)])
        XCTAssertEqual(changes.sections.updated, [3])
        let none = try await list.changes(since: changes.to, view: view.view)
        XCTAssertTrue(none.isEmpty)

        try await list.deleteView(view.view)
        await assertProblem("view-not-found", 404) { try await list.view(view.view) }
    }

    func testRecords() async throws {
        let people = client.collection("people")
        let created = try await people.put("p9", person("p9", "Zed", "Eng"))
        XCTAssertTrue(created.created)
        XCTAssertEqual(created.written.record["name"], "Zed")
        let replaced = try await people.put("p9", person("p9", "Zee", "Eng"))
        XCTAssertFalse(replaced.created)
        let read = try await people.get("p9")
        XCTAssertEqual(read["name"], "Zee")
        let page = try await people.records(pageSize: 4)
        XCTAssertEqual(page.records.count, 4)
        XCTAssertNotNil(page.nextPageToken)
        let rest = try await people.records(pageSize: 4, token: page.nextPageToken)
        XCTAssertEqual(rest.records.count, 2)
        let deleted = try await people.delete("p9")
        XCTAssertGreaterThan(deleted, replaced.written.version, "the delete says its version")
        await assertProblem("record-not-found", 404) { try await people.get("p9") }
        let batch = try await people.batch(upsert: [person("p10", "Ann", "Ops")], delete: ["p1"])
        XCTAssertEqual(batch.upserted, 1)
        XCTAssertEqual(batch.deleted, 1)

        // A merge patch: null removes a member, objects merge; every write says its version.
        let patched = try await people.patch("p10", ["email": nil, "tags": ["vip": true]])
        XCTAssertEqual(patched.record, ["id": "p10", "name": "Ann", "team": "Ops", "tags": ["vip": true]])
        XCTAssertEqual(patched.version, batch.version + 1)
        let patchedInBatch = try await people.batch(patch: [["id": "p10", "tags": ["vip": nil, "new": 1]]])
        XCTAssertEqual([patchedInBatch.upserted, patchedInBatch.patched, patchedInBatch.version], [0, 1, patched.version + 1])
        let read10 = try await people.get("p10")
        XCTAssertEqual(read10["tags"], ["new": 1])
        await assertProblem("record-not-found", 404) { try await people.patch("nobody", ["name": "X"]) }

        // A batch on conditions: refused whole while one fails, made when all hold.
        await assertProblem("precondition-failed", 412) {
            try await people.batch(upsert: [person("p11", "Eve", "Ops")], expectedVersions: ["p10": 1, "p11": 0])
        }
        do {
            _ = try await people.batch(upsert: [person("p11", "Eve", "Ops")], expectedVersions: ["p10": 1, "p11": 0])
            XCTFail("a batch whose expectation fails is refused")
        } catch let error as SectionalError {
            XCTAssertEqual(error.ids, ["p10"], "the problem names the record whose expectation failed")
        }
        await assertProblem("record-not-found", 404) { try await people.get("p11") }
        let conditional = try await people.batch(upsert: [person("p11", "Eve", "Ops")],
                                                 expectedVersions: ["p10": JSON.number(Double(patchedInBatch.version)), "p11": 0, "p2": "*"])
        XCTAssertEqual(conditional.upserted, 1)
    }

    /// A list read through a search: every read carries `q` and the filters, events included.
    func testASearchIsAListOfItsOwn() async throws {
        let found = client.list("people", search: ListSearch(text: "BÔB"))
        let outline = try await found.outline()
        XCTAssertEqual(outline.sections.map(\.key), ["pinned", "Design"], "Bob only, accents and case folded")
        let page = try await found.page(size: 10)
        XCTAssertEqual(page.sections.flatMap { $0.rows.map(\.id) }, ["me", "p2"])
        let filtered = client.list("people", search: ListSearch(filters: ["team": "Eng"]))
        let ids = try await filtered.page(size: 10).sections.flatMap { $0.rows.map(\.id) }
        XCTAssertEqual(ids, ["me", "p3", "p4"])
        await assertProblem("invalid-request", 400) {
            _ = try await self.client.list("people", search: ListSearch(filters: ["name": "Ada"])).outline()
        }
        // A filter's name is encoded like its value (a field's name may hold any character):
        // it reaches the server whole, and is refused there as undeclared.
        do {
            _ = try await client.list("people", search: ListSearch(filters: ["first name&x=y": "Eng"])).outline()
            XCTFail("an undeclared filter is refused")
        } catch let error as SectionalError {
            XCTAssertEqual(error.slug, "invalid-request")
            XCTAssertTrue(error.detail.contains("first name&x=y"), error.detail)
        }
        // The event stream takes the query too: an undeclared filter is refused there as well.
        var events = client.list("people", search: ListSearch(text: "bob")).events().makeAsyncIterator()
        let first = try await events.next()
        XCTAssertEqual(first?.version, outline.version)
        await assertProblem("invalid-request", 400) {
            var refused = self.client.list("people", search: ListSearch(filters: ["name": "Ada"])).events().makeAsyncIterator()
            return try await refused.next()
        }
    }

    /// `reading(atLeast:)`: reads carry the version (`Sectional-Min-Version`); a write's is
    /// answered at once, one never made waits its second and is `503 not-caught-up`.
    func testAClientReadingAtAVersionSendsIt() async throws {
        let written = try await client.collection("people").put("p9", person("p9", "Zed", "Eng")).written
        let reader = client.reading(atLeast: written.version)
        XCTAssertEqual(reader.minVersion, written.version)
        XCTAssertEqual(reader.reading(atLeast: 1).minVersion, written.version, "the highest asked for stays")
        let outline = try await reader.list("people").outline()
        XCTAssertGreaterThanOrEqual(outline.version, Int64(written.version))
        let record = try await reader.collection("people").get("p9")
        XCTAssertEqual(record["name"], "Zed")
        await assertProblem("not-caught-up", 503) { try await self.client.reading(atLeast: written.version + 1_000).list("people").outline() }
        XCTAssertNil(client.minVersion, "the client it was made from is unchanged")
    }

    func testProblemsAreTyped() async throws {
        let list = client.list("people")
        await assertProblem("list-not-found", 404) { try await self.client.list("nope").outline() }
        await assertProblem("tag-not-found", 404) { try await list.row(tag: 999) }
        await assertProblem("row-not-found", 404) { try await list.row(id: "nobody") }
        await assertProblem("section-not-found", 404) { try await list.rows(inSection: 99) }
        await assertProblem("index-path-not-found", 404) { try await list.indexPath(sectionType: "team", rowType: "robot") }
        await assertProblem("invalid-page-token", 400) { try await list.page(token: "garbage") }
        await assertProblem("invalid-page-size", 400) { try await list.page(size: -1) }
        await assertProblem("invalid-version", 400) { try await list.changes(since: 1 << 40) }
        await assertProblem("view-not-found", 404) { try await list.toggle(section: 0, view: "nope") }
        await assertProblem("invalid-name", 400) { try await self.client.collection("bad name").get("x") }
    }
}
