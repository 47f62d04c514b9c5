import Foundation
import SectionalClient
import TestSupport
import XCTest

/// A section shown or hidden elsewhere through the mirror's view (another device with the same
/// view) does not move the list's version; `sync()` still picks it up, by reloading. A search or
/// filter result's mirror hides and shows the result's sections. A toggle the server answered
/// stays in the mirror when the rows it reads next fail or are cancelled.
final class MirrorViewSyncTests: XCTestCase {
    func testAToggleTheServerAnsweredStaysInTheMirrorWhenItsRowsReadFailsOrIsCancelled() async throws {
        let server = try LiveServer()
        let hook = RequestHook()
        let client = SectionalClient(baseURL: server.url, tokenProvider: hook.provider)
        let list = client.list("people")
        let (mirror, view) = try await mirrorWithDesignHidden(client)

        // Shown on the server (the toggle is the first request), then the task cancelled just
        // before its second, the section's first rows: it throws, and the mirror shows Design as
        // the view does, its row a placeholder that loadNext() reads.
        hook.arm(before: 2) { withUnsafeCurrentTask { $0?.cancel() } }
        do {
            try await mirror.toggle(section: 1)
            XCTFail("the toggle cancelled while reading its rows answered")
        } catch is CancellationError {}
        XCTAssertTrue(hook.fired)
        let viewState = try await list.view(view)
        XCTAssertFalse(viewState.hidden.contains("Design"), "the toggle reached the server")
        var held = await mirror.snapshot
        var own = try XCTUnwrap(held).sections[1]
        XCTAssertEqual(own.section.key, "Design")
        XCTAssertFalse(own.section.hidden, "the mirror shows Design as its view has it")
        XCTAssertEqual(own.rows.map { $0?.id }, [nil], "its row is a placeholder")
        let loaded = try await mirror.loadNext()
        XCTAssertTrue(loaded)
        held = await mirror.snapshot
        own = try XCTUnwrap(held).sections[1]
        XCTAssertEqual(own.rows.map { $0?.id }, ["p1"])

        // Hidden, then shown with the rows' request failing: the toggle answers all the same.
        try await mirror.toggle(section: 1)
        hook.arm(before: 2) { throw URLError(.networkConnectionLost) }
        let update = try await mirror.toggle(section: 1)
        XCTAssertTrue(hook.fired)
        let snapshot = await mirror.snapshot
        XCTAssertEqual(update.snapshot, snapshot)
        XCTAssertFalse(update.snapshot.sections[1].section.hidden)
        XCTAssertEqual(update.snapshot.sections[1].rows.map { $0?.id }, [nil])
        XCTAssertEqual(update.changes.rows.inserted, [ListIndexPath(section: 1, row: 0)])
        let synced = try await mirror.sync()
        XCTAssertFalse(synced.changes.reload, "the mirror is as its view is")
    }

    func testASectionShownOrHiddenElsewhereThroughTheMirrorsViewIsPickedUpBySync() async throws {
        let server = try LiveServer()
        let client = SectionalClient(baseURL: server.url)
        let list = client.list("people")
        _ = try await client.collection("people").batch(upsert: [person("p1", "Ada", "Design"), person("p2", "Bob", "Eng"), person("p3", "Cy", "Eng")])
        let mirror = list.mirror(pageSize: 10)
        try await mirror.reload()
        try await mirror.toggle(section: 1)                       // creates the mirror's view: Design hidden
        let mirrorView = await mirror.view, mirrorVersion = await mirror.snapshot?.version
        let view = try XCTUnwrap(mirrorView), version = try XCTUnwrap(mirrorVersion)

        // Another device shows Design again, and hides Eng, through the same view.
        _ = try await list.toggle(section: 1, view: view)
        var update = try await mirror.sync()
        let outline = try await list.outline(view: view)
        XCTAssertEqual(outline.version, version, "a view's change does not move the list's version")
        XCTAssertTrue(update.changes.reload, "the mirror reloads")
        XCTAssertEqual(update.snapshot.sections.map(\.section.hidden), [false, false, false])
        XCTAssertEqual(update.snapshot.sections[1].rows.compactMap { $0?.id }, ["p1"])
        _ = try await list.setHidden(true, section: 2, view: view)
        update = try await mirror.sync()
        XCTAssertTrue(update.changes.reload)
        let fresh = try await list.mirror(view: view, pageSize: 50).reload(rows: .max).snapshot
        XCTAssertEqual(update.snapshot, fresh, "the mirror sees what the view shows")
        XCTAssertEqual(update.snapshot.sections[2].section.hidden, true)

        // Nothing changed since: an empty update, no reload.
        update = try await mirror.sync()
        XCTAssertFalse(update.changes.reload)
        XCTAssertEqual(update.snapshot, fresh)
    }

    /// A section hidden elsewhere through the mirror's view makes loading its rows stale: the
    /// range came back empty and `loadNext()` answered `true` without storing a row, forever.
    func testASectionHiddenElsewhereMakesLoadNextStaleNotLoop() async throws {
        let server = try LiveServer()
        let client = SectionalClient(baseURL: server.url)
        let list = client.list("people")
        _ = try await client.collection("people").batch(upsert: (0..<12).map { person("e\($0 + 10)", "E\($0)", "Eng") })
        let view = try await list.createView().view
        let mirror = list.mirror(view: view, pageSize: 5)
        try await mirror.reload(rows: 5)
        let loaded = await mirror.snapshot
        let eng = try XCTUnwrap(loaded?.sections.firstIndex { $0.section.key == "Eng" })
        _ = try await list.setHidden(true, section: eng, view: view)     // another device, same view
        do {
            _ = try await mirror.loadNext()
            XCTFail("stored nothing, and said it loaded rows")
        } catch is ListMirror.Stale {}
        let update = try await mirror.sync()
        XCTAssertTrue(update.changes.reload)
        XCTAssertEqual(update.snapshot.sections[eng].section.hidden, true)
        var loads = 0
        while try await mirror.loadNext() { loads += 1; XCTAssertLessThan(loads, 20, "loadNext ends") }
    }

    /// A mirror whose view is gone (deleted elsewhere, expired) reads the list as it is for
    /// everyone: every sync and reload threw `404 view-not-found`, for good.
    func testAMirrorWhoseViewIsGoneReadsTheListAsItIsForEveryone() async throws {
        let server = try LiveServer()
        let client = SectionalClient(baseURL: server.url)
        let list = client.list("people")
        _ = try await client.collection("people").batch(upsert: [person("p1", "Ada", "Design"), person("p2", "Bob", "Eng")])
        let mirror = list.mirror(pageSize: 10)
        try await mirror.reload()
        try await mirror.toggle(section: 1)                       // creates the mirror's view
        let made = await mirror.view
        let view = try XCTUnwrap(made)
        try await list.deleteView(view)
        let update = try await mirror.sync()
        XCTAssertTrue(update.changes.reload)
        let mirrorView = await mirror.view
        XCTAssertNil(mirrorView)
        let fresh = try await list.mirror(pageSize: 50).reload(rows: .max).snapshot
        XCTAssertEqual(update.snapshot, fresh)
        try await mirror.toggle(section: 1)                       // a toggle makes a new view
        let again = await mirror.view
        XCTAssertNotNil(again)
        XCTAssertNotEqual(again, view)
    }

    /// A toggle or a row load through a view that is gone says Stale (each threw `404
    /// view-not-found` for good, the mirror keeping the dead id); the sync after reloads without
    /// it, and the toggle after that makes a new view.
    func testAToggleOrALoadThroughAViewThatIsGoneSaysStale() async throws {
        let server = try LiveServer()
        let client = SectionalClient(baseURL: server.url)
        let list = client.list("people")
        _ = try await client.collection("people").batch(upsert: (1...30).map { person("p\($0)", "P\($0)", $0 % 2 == 0 ? "Eng" : "Design") })
        let mirror = list.mirror(pageSize: 5)
        try await mirror.reload()
        try await mirror.toggle(section: 1)                       // creates the mirror's view
        try await mirror.toggle(section: 1)
        let made = await mirror.view
        let view = try XCTUnwrap(made)
        try await list.deleteView(view)
        do {
            _ = try await mirror.loadNext()
            XCTFail("loaded through a view that is gone")
        } catch is ListMirror.Stale {}
        do {
            try await mirror.toggle(section: 1)
            XCTFail("toggled through a view that is gone")
        } catch is ListMirror.Stale {}
        let update = try await mirror.sync()
        XCTAssertTrue(update.changes.reload)
        let dropped = await mirror.view
        XCTAssertNil(dropped)
        let loaded = try await mirror.loadNext()
        XCTAssertTrue(loaded)
        let shown = await mirror.snapshot?.sections[1].section.hidden
        try await mirror.toggle(section: 1)
        let again = await mirror.view
        XCTAssertNotNil(again)
        XCTAssertNotEqual(again, view)
        let toggled = await mirror.snapshot?.sections[1].section.hidden
        XCTAssertEqual(toggled, shown.map { !$0 })
    }

    func testAViewTheMirrorMakesKeepsTheDefinitionsDefaultHiddenSectionsNotYetInTheList() async throws {
        let server = try LiveServer()
        let client = SectionalClient(baseURL: server.url)
        let list = client.list("people")
        let (mirror, view) = try await mirrorWithDesignHidden(client)
        let state = try await list.view(view)
        XCTAssertEqual(Set(state.hidden), ["Design", "Archived"],
                       "the view starts from the definition's default hidden sections, Archived too although no record is in it yet")

        // An Archived record arrives: hidden through the mirror's view, as it is without a view.
        _ = try await client.collection("people").batch(upsert: [person("p3", "Cy", "Archived")])
        let synced = try await mirror.sync().snapshot
        XCTAssertEqual(synced.sections.map(\.section.key), ["pinned", "Archived", "Design", "Eng"])
        XCTAssertEqual(synced.sections.map(\.section.hidden), [false, true, true, false])
        let plain = try await list.outline()
        XCTAssertEqual(plain.sections.first { $0.key == "Archived" }?.hidden, true)
    }

    func testAFilterResultsMirrorHidesAndShowsTheResultsSectionsNotTheWholeLists() async throws {
        let server = try LiveServer()
        let client = SectionalClient(baseURL: server.url)
        _ = try await client.collection("people").batch(upsert: [person("p1", "Ada", "Design"), person("p2", "Bob", "Eng"), person("p3", "Cy", "Ops")])
        let ops = client.list("people", search: ListSearch(filters: ["team": "Ops"]))
        let mirror = ops.mirror(pageSize: 10)
        let before = try await mirror.reload().snapshot
        XCTAssertEqual(before.sections.map(\.section.key), ["pinned", "Ops"], "the whole list has Design at index 1")

        // Section 1 of the result is Ops: the view hides Ops, and the list did not move, so nothing is stale.
        let hidden = try await mirror.toggle(section: 1).snapshot
        XCTAssertEqual(hidden.version, before.version)
        XCTAssertEqual(hidden.sections.map(\.section.hidden), [false, true])
        let mirrorView = await mirror.view
        let view = try XCTUnwrap(mirrorView)
        let state = try await ops.view(view)
        XCTAssertEqual(state.hidden, ["Archived", "Ops"], "with the definition's default hidden sections")
        let whole = try await client.list("people").outline(view: view)
        XCTAssertEqual(whole.sections.filter(\.hidden).map(\.key), ["Ops"])

        // Shown again, with its rows; the plain calls name the result's sections too.
        let shown = try await mirror.setHidden(false, section: 1).snapshot
        XCTAssertEqual(shown.sections[1].rows.map { $0?.id }, ["p3"])
        let hiddenAgain = try await ops.setHidden(true, section: 1, view: view)
        XCTAssertEqual(hiddenAgain.section.key, "Ops")
        let flipped = try await ops.toggle(section: 1, view: view)
        XCTAssertEqual(flipped.section.key, "Ops")
        let after = try await ops.view(view)
        XCTAssertEqual(after.hidden, ["Archived"])
        let synced = try await mirror.sync().snapshot
        let fresh = try await ops.mirror(view: view, pageSize: 10).reload().snapshot
        XCTAssertEqual(synced, fresh)
        try await ops.deleteView(view)
    }

    /// A mirror of `people` (Ada in Design, Bob in Eng) whose first toggle hid Design, and the
    /// view that toggle created.
    private func mirrorWithDesignHidden(_ client: SectionalClient) async throws -> (ListMirror, String) {
        _ = try await client.collection("people").batch(upsert: [person("p1", "Ada", "Design"), person("p2", "Bob", "Eng")])
        let mirror = client.list("people").mirror(pageSize: 10)
        try await mirror.reload()
        try await mirror.toggle(section: 1)
        let view = await mirror.view
        return (mirror, try XCTUnwrap(view))
    }
}
