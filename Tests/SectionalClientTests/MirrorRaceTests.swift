import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SectionalClient
import TestSupport
import XCTest

/// Writes that land between the requests of one mirror operation (a ``RequestHook`` makes them
/// just before a chosen request): the operation tries again or reloads, or throws
/// ``ListMirror/Stale``; never the server's `404 section-not-found` or `400 invalid-page-token`.
final class MirrorRaceTests: XCTestCase {
    /// A section the sync is fetching a row of disappears before that row read (`404
    /// section-not-found`): the sync tries again at the newer version.
    func testASyncWhoseSectionDisappearsMidwayTriesAgain() async throws {
        let (server, people, hook, list) = try await adaAndBoWithHook()
        let mirror = list.mirror()
        try await mirror.reload()
        try await people.put("p3", person("p3", "Cy", "Eng"))      // the sync fetches Eng's new row
        // The sync asks for changes, the outline, then Eng's row: Eng is emptied just before that.
        hook.arm(before: 3) { _ = try await people.batch(delete: ["p2", "p3"]) }
        let update = try await mirror.sync()
        XCTAssertTrue(hook.fired, "the write landed during the sync")
        let fresh = try await SectionalClient(baseURL: server.url).list("people").mirror().reload(rows: .max).snapshot
        XCTAssertEqual(update.snapshot.sections.map(\.section.key), ["pinned", "Design"])
        assertLoadedRowsMatch(update.snapshot, fresh, "after the sync")
    }

    /// The list's definition changes while a reload walks its pages (the next page is `400
    /// invalid-page-token` with `reload: true`): the reload starts again from the outline.
    func testAReloadWhoseDefinitionChangesMidwayStartsAgain() async throws {
        let token = "mirror-race-token"
        let server = try LiveServer(token: token)
        let writer = SectionalClient(baseURL: server.url, token: token)
        let people = writer.collection("people")
        let hook = RequestHook(token: token)
        let list = SectionalClient(baseURL: server.url, tokenProvider: hook.provider).list("people")
        _ = try await people.batch(upsert: (0..<40).map { person("p\($0)", "N\($0 + 10)", "Design") })
        let mirror = list.mirror(pageSize: 10)
        // The reload reads the outline, then pages: the title changes just before the second page.
        hook.arm(before: 3) { try await retitle("people", to: "Staff", server: server.url, token: token) }
        let update = try await mirror.reload(rows: 30)
        XCTAssertTrue(hook.fired, "the definition changed during the reload")
        XCTAssertEqual(update.snapshot.title, "Staff")
        XCTAssertGreaterThanOrEqual(update.snapshot.loadedRowCount, 30)
        let fresh = try await writer.list("people").mirror().reload(rows: .max).snapshot
        assertLoadedRowsMatch(update.snapshot, fresh, "after the reload")
    }

    /// A section the mirror holds is gone (the list moved on, no sync yet): loads by index path and
    /// toggles throw ``ListMirror/Stale`` at the list's version. A toggle that created the mirror's
    /// view leaves the snapshot seen through it, also after the sync.
    func testLoadsAndTogglesOfAGoneSectionAreStale() async throws {
        let server = try LiveServer()
        let client = SectionalClient(baseURL: server.url)
        let people = client.collection("people")
        _ = try await people.batch(upsert: [person("p1", "Ada", "Design"), person("p2", "Bo", "Eng")])
        let mirror = client.list("people").mirror(pageSize: 1)
        let loaded = try await mirror.reload(rows: 2).snapshot          // Me, Ada; Bo a placeholder
        XCTAssertEqual(loaded.keysAndIDs.map(\.rows), [["me"], ["p1"], [nil]])
        try await people.delete("p2")                                   // Eng is gone
        let now = try await client.list("people").outline().version

        await assertStale(mirror: loaded.version, server: now, "row(at:)") { try await mirror.row(at: ListIndexPath(section: 2, row: 0)) }
        await assertStale(mirror: loaded.version, server: now, "loadNext()") { try await mirror.loadNext() }
        await assertStale(mirror: loaded.version, server: now, "toggle(section:)") { try await mirror.toggle(section: 2) }
        let view = await mirror.view
        XCTAssertNotNil(view, "the toggle created a view")
        let held = await mirror.snapshot
        XCTAssertEqual(held?.view, view, "the snapshot is seen through the view the mirror reads through")
        XCTAssertEqual(held?.version, loaded.version, "nothing else stored")

        let synced = try await mirror.sync().snapshot
        XCTAssertEqual(synced.view, view)
        XCTAssertEqual(synced.sections.map(\.section.key), ["pinned", "Design"])
    }

    /// A toggle whose index names another section by the time it reaches the server (a write
    /// landed just before it) changes nothing in the view and throws ``ListMirror/Stale`` at the
    /// list's version: the mirror names the section it means, so nothing needs flipping back.
    func testAToggleWhoseIndexNowNamesAnotherSectionChangesNothing() async throws {
        let (server, people, hook, list) = try await adaAndBoWithHook()
        let view = try await list.createView().view
        let mirror = list.mirror(view: view)
        let loaded = try await mirror.reload().snapshot
        XCTAssertEqual(loaded.sections.map(\.section.key), ["pinned", "Design", "Eng"])
        let before = try await list.view(view).hidden
        hook.arm(before: 1) { try await people.put("p0", person("p0", "Cy", "Accounts")) }   // section 1 is Accounts now
        do {
            _ = try await mirror.toggle(section: 1)
            XCTFail("expected Stale, got an answer")
        } catch let stale as ListMirror.Stale {
            let now = try await SectionalClient(baseURL: server.url).list("people").outline().version
            XCTAssertEqual([stale.mirror, stale.server], [loaded.version, now])
        }
        XCTAssertTrue(hook.fired)
        let after = try await list.view(view).hidden
        XCTAssertEqual(after, before, "no section of the view changed")
    }

    /// A toggle asks for the state the mirror shows next, not a flip: when the view got there
    /// first (another client of the same view hid the section), the view and the mirror agree.
    func testAToggleSetsTheStateWhenTheViewGotThereFirst() async throws {
        let server = try LiveServer()
        let client = SectionalClient(baseURL: server.url)
        _ = try await client.collection("people").batch(upsert: [person("p1", "Ada", "Design"), person("p2", "Bo", "Eng")])
        let list = client.list("people")
        let view = try await list.createView().view
        let mirror = list.mirror(view: view)
        let loaded = try await mirror.reload().snapshot
        let eng = try XCTUnwrap(loaded.sections.firstIndex { $0.section.key == "Eng" })
        _ = try await list.setHidden(true, section: eng, view: view)   // another client of the view
        let update = try await mirror.toggle(section: eng)
        XCTAssertEqual(update.snapshot.sections[eng].section.hidden, true)
        let hidden = try await list.view(view).hidden
        XCTAssertTrue(hidden.contains("Eng"), "the view hides Eng, as the mirror shows; it hides \(hidden)")
    }
}

/// A live server holding Ada (Design) and Bo (Eng), a writer's `people`, and the list through a
/// client whose ``RequestHook`` runs an action before a chosen request.
private func adaAndBoWithHook() async throws -> (LiveServer, SectionalCollection, RequestHook, SectionalList) {
    let server = try LiveServer()
    let people = SectionalClient(baseURL: server.url).collection("people")
    let hook = RequestHook()
    let list = SectionalClient(baseURL: server.url, tokenProvider: hook.provider).list("people")
    _ = try await people.batch(upsert: [person("p1", "Ada", "Design"), person("p2", "Bo", "Eng")])
    return (server, people, hook, list)
}

/// Asserts that `body` throws ``ListMirror/Stale`` with these versions.
private func assertStale<T>(mirror: Int64, server: Int64, _ what: String, file: StaticString = #filePath, line: UInt = #line,
                            _ body: () async throws -> T) async {
    do {
        _ = try await body()
        XCTFail("\(what): expected Stale, got an answer", file: file, line: line)
    } catch let stale as ListMirror.Stale {
        XCTAssertEqual(stale.mirror, mirror, what, file: file, line: line)
        XCTAssertEqual(stale.server, server, what, file: file, line: line)
    } catch {
        XCTFail("\(what): expected Stale, got \(error)", file: file, line: line)
    }
}

/// Gives a list's run-time definition another title (`PUT …/definition`, with the service token).
private func retitle(_ list: String, to title: String, server: URL, token: String) async throws {
    let url = server.appendingPathComponent("v1/lists/\(list)/definition")
    var get = URLRequest(url: url)
    get.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    let (data, _) = try await URLSession.shared.data(for: get)
    guard var definition = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["definition"] as? [String: Any] else {
        throw SectionalError(slug: "test", status: 0, detail: "no definition in \(String(decoding: data, as: UTF8.self))")
    }
    definition["title"] = title
    var put = URLRequest(url: url)
    put.httpMethod = "PUT"
    put.httpBody = try JSONSerialization.data(withJSONObject: definition)
    put.setValue("application/json", forHTTPHeaderField: "Content-Type")
    put.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    let (_, response) = try await URLSession.shared.data(for: put)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard status == 200 || status == 201 else { throw SectionalError(slug: "test", status: status, detail: "PUT definition") }
}
