import ListModel
import ListStore
import XCTest

/// The views part of the store contract: saved, touched, updated only from the state read, deleted,
/// and kept with their owner.
extension RecordStoreContract {
    func checkViewsAreSavedTouchedAndDeleted() throws {
        let store = try makeStore()
        try store.saveView(StoredView(id: "v1", list: "contacts", hidden: ["Design"], lastUsed: 100))
        try store.saveView(StoredView(id: "v2", list: "contacts", hidden: [], lastUsed: 100))
        try store.saveView(StoredView(id: "v3", list: "contacts", hidden: [], lastUsed: 100))
        try store.touchViews(["v2"], at: 500)
        // An older time (another instance's flush, late) never moves a view's back: a third
        // instance's expiry then deleted a view used within its time to live.
        try store.touchViews(["v2"], at: 300)
        XCTAssertEqual(try store.deleteViews(ids: ["v1", "v3", "missing"]), 2)
        XCTAssertEqual(try store.allViews(), [StoredView(id: "v2", list: "contacts", hidden: [], lastUsed: 500)])
        XCTAssertTrue(try store.deleteView(id: "v2"))
        XCTAssertFalse(try store.deleteView(id: "v2"))
    }

    /// A change racing a delete must not bring the view back: updating a missing view stores nothing.
    func checkUpdatingADeletedViewStoresNothing() throws {
        let store = try makeStore()
        let view = StoredView(id: "v", list: "l", hidden: ["a"], lastUsed: 1)
        try store.saveView(view)
        XCTAssertTrue(try store.updateView(StoredView(id: "v", list: "l", hidden: ["a", "b"], lastUsed: 2), replacing: ["a"]))
        XCTAssertEqual(try store.allViews(), [StoredView(id: "v", list: "l", hidden: ["a", "b"], lastUsed: 2)])
        XCTAssertTrue(try store.deleteView(id: "v"))
        XCTAssertFalse(try store.updateView(view, replacing: ["a", "b"]))
        XCTAssertEqual(try store.allViews(), [], "the deleted view stays deleted")
        try store.touchViews(["v"], at: 3)
        XCTAssertEqual(try store.allViews(), [], "a late use does not re-insert it either")
    }

    /// A change read from a view that another instance changed since stores nothing, so that
    /// neither change is lost (the caller reads the view again and retries).
    func checkAViewChangeFromAStaleReadStoresNothing() throws {
        let store = try makeStore()
        try store.saveView(StoredView(id: "v", list: "l", hidden: ["a"], lastUsed: 1))
        XCTAssertTrue(try store.updateView(StoredView(id: "v", list: "l", hidden: ["a", "b"], lastUsed: 2), replacing: ["a"]))
        XCTAssertFalse(try store.updateView(StoredView(id: "v", list: "l", hidden: ["a", "c"], lastUsed: 3), replacing: ["a"]))
        XCTAssertEqual(try store.view(id: "v"), StoredView(id: "v", list: "l", hidden: ["a", "b"], lastUsed: 2))
    }

    /// A view's owner is kept, and a view without one stays without.
    func checkViewsKeepTheirOwner() throws {
        let store = try makeStore()
        try store.saveView(StoredView(id: "v1", list: "mine", owner: "user-1", hidden: ["a"], lastUsed: 10))
        try store.saveView(StoredView(id: "v2", list: "all", hidden: [], lastUsed: 10))
        XCTAssertEqual(try store.allViews(), [StoredView(id: "v1", list: "mine", owner: "user-1", hidden: ["a"], lastUsed: 10),
                                              StoredView(id: "v2", list: "all", hidden: [], lastUsed: 10)])
        XCTAssertTrue(try store.updateView(StoredView(id: "v1", list: "mine", owner: "user-2", hidden: [], lastUsed: 11), replacing: ["a"]))
        XCTAssertEqual(try store.allViews().first?.owner, "user-2")
        // Any string, U+0000 too (PostgreSQL's text holds none: a user token's sub made a view write 500).
        for (id, owner) in [("v3", "a\u{0}b"), ("v4", "\u{1}61"), ("v5", "a")] {
            try store.saveView(StoredView(id: id, list: "mine", owner: owner, hidden: [], lastUsed: 12))
            XCTAssertEqual(try store.view(id: id)?.owner, owner)
        }
        XCTAssertTrue(try store.updateView(StoredView(id: "v3", list: "mine", owner: "c\u{0}d", hidden: ["k"], lastUsed: 13), replacing: []))
        XCTAssertEqual(try store.allViews().first { $0.id == "v3" }?.owner, "c\u{0}d")
    }
}
