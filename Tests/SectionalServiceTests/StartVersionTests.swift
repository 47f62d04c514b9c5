import Dispatch
import Foundation
import ListStore
import Locking
import TestSupport
import XCTest
@testable import ListModel
@testable import SectionalService

/// A list's version never goes back across restarts, and moves when its definition changed while
/// no server ran: the store remembers the definition each list was served with.
final class StartVersionTests: FolderTestCase {
    private func definitions(title: String) throws -> [ListDefinition] {
        try ListDefinitions.decode(JSONParser.parse(#"""
        {"people":{"sections":[{"key":"all","source":"people","type":"all","title":"\#(title)","row":{"type":"person","title":"{name}"}}]},
         "others":{"sections":[{"key":"all","source":"people","type":"all","title":"Others","row":{"type":"person","title":"{name}"}}]}}
        """#))
    }

    /// Opens the store at `path` serving `title`, runs `body`, closes it.
    private func serve(_ path: String, title: String, _ body: (ViewModelStore) throws -> Void = { _ in }) throws {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        try body(try ViewModelStore(definitions: try definitions(title: title), store: store, log: Log(level: .error)))
    }

    private func writeAda(_ store: ViewModelStore) throws {
        try commit(store, [.upsert(collection: "people", record: IncomingRecord(id: "p1", object: JSONObject([("name", .string("Ada"))])))])
    }

    private func versions(_ store: ViewModelStore) -> [Int64?] { [store.list("people")?.version, store.list("others")?.version] }

    /// Reloads the config as `SIGHUP` does, and waits for it to be in force.
    private func reload(_ store: ViewModelStore, _ lists: [ListDefinition]) throws {
        let done = DispatchSemaphore(value: 0)
        store.reloadConfigLater(lists) { _ in done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
    }

    func testVersionsNeverGoBackAndMoveWhenTheDefinitionChangedWhileStopped() throws {
        let path = folder.appendingPathComponent("lists.sqlite").path
        try serve(path, title: "All") { store in
            try writeAda(store)
            XCTAssertEqual(versions(store), [1, 1])
        }
        try serve(path, title: "All") { XCTAssertEqual(versions($0), [1, 1], "nothing changed") }
        // Edited while stopped: the list moves, the other keeps its version.
        try serve(path, title: "Everyone") { XCTAssertEqual(versions($0), [2, 1]) }
        try serve(path, title: "Everyone") { XCTAssertEqual(versions($0), [2, 1], "moved once, then kept") }
        // Reloaded while serving (SIGHUP): the version it moved to survives the restart.
        try serve(path, title: "Everyone") { store in
            try reload(store, try definitions(title: "Reloaded"))
            XCTAssertEqual(versions(store), [3, 1])
        }
        try serve(path, title: "Reloaded") { XCTAssertEqual(versions($0), [3, 1], "not back to 2") }
        try serve(path, title: "All") { XCTAssertEqual(versions($0), [4, 1]) }
    }

    /// A list removed by a reload announced a version at its removal; served again by a later
    /// start with the very definition it had, it moves past that version (it went back to the
    /// version it had before the removal, with the same entity tag).
    func testAListRemovedByAReloadComesBackAboveTheVersionItsRemovalAnnounced() throws {
        let path = folder.appendingPathComponent("lists.sqlite").path
        try serve(path, title: "All") { store in
            try writeAda(store)
            XCTAssertEqual(versions(store), [1, 1])
            try reload(store, try definitions(title: "All").filter { $0.name != "others" })
            XCTAssertEqual(versions(store), [1, nil], "removed at version 2")
        }
        try serve(path, title: "All") { XCTAssertEqual(versions($0), [1, 3], "back above the removal's version 2") }
        try serve(path, title: "All") { XCTAssertEqual(versions($0), [1, 3], "moved once, then kept") }
    }

    /// A user's partition never shows a version below its list's last definition change, on
    /// every start after it, not only on the start that made the move (it went back to the
    /// version of the user's last write, and `changes` from under the old definition answered
    /// an empty diff instead of reload).
    func testAPartitionStaysAtOrAboveItsListsDefinitionChangeAcrossRestarts() throws {
        let path = folder.appendingPathComponent("lists.sqlite").path
        func mine(_ key: String) throws -> [ListDefinition] {
            try ListDefinitions.decode(JSONParser.parse(#"""
            {"mine":{"scope":{"field":"owner"},
                     "sections":[{"key":"\#(key)","source":"notes","type":"all","title":"All","row":{"type":"note","title":"{text}"}}]}}
            """#))
        }
        func serve(_ key: String, _ body: (ViewModelStore, ListDefinition) throws -> Void) throws {
            let sqlite = try SQLiteStore(path: path)
            defer { sqlite.close() }
            let definitions = try mine(key)
            try body(try ViewModelStore(definitions: definitions, store: sqlite, log: Log(level: .error)), definitions[0])
        }
        let alice = try XCTUnwrap(PartitionKey(.string("alice")))
        try serve("all") { store, definition in
            try commit(store, [.upsert(collection: "notes", record: IncomingRecord(id: "n1", object: JSONObject([("owner", .string("alice")), ("text", .string("hi"))])))])
            XCTAssertEqual(try store.partition(alice, of: definition).version, 1)
        }
        try serve("everything") { store, definition in
            XCTAssertEqual(try store.partition(alice, of: definition).version, 2)
        }
        try serve("everything") { store, definition in
            XCTAssertEqual(try store.partition(alice, of: definition).version, 2, "not back to alice's last write")
        }
    }

    /// A start on a full disk serves, the changed list at the version it had; the next start that
    /// can write moves it.
    func testAStartThatCannotRecordTheDefinitionsStillServes() throws {
        let path = folder.appendingPathComponent("lists.sqlite").path
        try serve(path, title: "All") { store in
            try writeAda(store)
        }
        do {
            let sqlite = try SQLiteStore(path: path)
            defer { sqlite.close() }
            let full = try ViewModelStore(definitions: try definitions(title: "Everyone"), store: FullDiskStore(sqlite, capacity: 0),
                                          log: Log(level: .error))
            XCTAssertEqual(versions(full), [1, 1])
        }
        try serve(path, title: "Everyone") { XCTAssertEqual(versions($0), [2, 1]) }
    }

    /// A definition change (or a reload) whose served-definitions record cannot be written is
    /// still served: the change itself is committed, and the next start records it.
    func testADefinitionChangeIsServedWhenItsRecordCannotBeWritten() throws {
        let store = try ViewModelStore(definitions: try definitions(title: "All"), store: FullDiskStore(MemoryStore(), capacity: 0),
                                       log: Log(level: .error))
        let changed = try XCTUnwrap(try definitions(title: "Changed").first)
        let outcome = Locked<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        store.changeDefinitionLater("people", to: changed) { result in
            outcome.withLock { if case .success = result { $0 = true } else { $0 = false } }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(outcome.withLock { $0 }, true, "the committed change is answered as made")
        XCTAssertEqual(store.definition("people")?.fingerprint, Localization.base(changed).fingerprint, "and served")
    }
}
