import Dispatch
import ListStore
import Locking
import XCTest
@testable import ListModel
@testable import SectionalService

/// A search result made while a definition change raced its request keeps the search fields its
/// request read, not the list's: the results a write moves must each match it by their own
/// fields. (One such result, first among the list's, once made every other result take a write's
/// text from its fields alone: a record whose email matched `q` left the result.) Such a result
/// is now answered but not kept.
final class SearchRaceTests: XCTestCase {
    func testEachResultMatchesAWriteByItsOwnSearchFields() throws {
        let store = try peopleSearchingNamesAndEmails()
        let (name, email) = (try XCTUnwrap(FieldPath("name")), try XCTUnwrap(FieldPath("email")))
        try write(store, "p1", name: "Anna", email: "anna@example.com")
        let base = try XCTUnwrap(store.list("people"))
        let example = ListQuery(text: "example", filters: [], searchFields: [name, email])
        XCTAssertTrue(try XCTUnwrap(store.searched(base, query: example)).snapshot.contains(rowID: "p1"))
        // Results keyed by the name alone, as a request that read the list under a definition
        // searching names only would have made them; one of them is likely first of the list's.
        for i in 0..<40 {
            _ = try store.searched(base, query: ListQuery(text: "zz\(i)", filters: [], searchFields: [name]))
        }
        try write(store, "p2", name: "Bob", email: "bob@example.com")
        let moved = try XCTUnwrap(store.searched(try XCTUnwrap(store.list("people")), query: example))
        XCTAssertTrue(moved.snapshot.contains(rowID: "p2"), "bob@example.com matches 'example' by its email")
        XCTAssertTrue(moved.snapshot.contains(rowID: "p1"))
    }

    /// A search made for the definition a request read, after the definition changed: not
    /// answered from the new list (matched by fields it does not search, it had no rows) nor
    /// kept; the request is read again under the new definition.
    func testAResultAskedForUnderADefinitionChangedSinceIsNeitherAnsweredNorKept() throws {
        let store = try peopleSearchingNamesAndEmails()
        let (name, email) = (try XCTUnwrap(FieldPath("name")), try XCTUnwrap(FieldPath("email")))
        try write(store, "p1", name: "Anna", email: "anna@example.com")
        try write(store, "p2", name: "Example Bob", email: "bob@b.org")
        let before = try XCTUnwrap(store.list("people"))
        // The list now searches names only; a request that read it before asks by both fields.
        let namesOnly = try ListDefinitions.decode(name: "people", JSONParser.parse(#"""
        {"search":{"fields":["name"]},
         "sections":[{"key":"all","source":"people","type":"all","title":"All","row":{"type":"person","title":"{name}"}}]}
        """#))
        let done = DispatchSemaphore(value: 0)
        store.changeDefinitionLater("people", to: namesOnly) { _ in done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the change answered")

        let late = ListQuery(text: "example", filters: [], searchFields: [name, email])
        XCTAssertNil(try store.searched(before, query: late), "read the request again")
        let lateKey = MaterializationKey(list: "people", partition: nil, language: nil, query: late)
        XCTAssertNil(store.cache.readEntry(lateKey), "a result no later request asks for is not kept")

        let now = try XCTUnwrap(store.list("people"))
        let current = ListQuery(text: "example", filters: [], searchFields: [name])
        XCTAssertTrue(try XCTUnwrap(store.searched(now, query: current)).snapshot.contains(rowID: "p2"))
        XCTAssertNotNil(store.cache.readEntry(MaterializationKey(list: "people", partition: nil, language: nil, query: current)),
                        "a result of the definition in force is kept")
    }

    /// Searches that come together before the list's corpus is made make it once: the others
    /// wait for the one being made, instead of each reading every record under the writer's lock
    /// and holding a copy of them (eight first searches on a list of a million records held eight
    /// copies).
    func testSearchesThatComeTogetherBeforeTheCorpusIsMadeMakeItOnce() throws {
        let store = try peopleSearchingNamesAndEmails()
        let name = try XCTUnwrap(FieldPath("name")), email = try XCTUnwrap(FieldPath("email"))
        let writes = (0..<20_000).map { n -> ViewModelStore.Write in
            var object = JSONObject()
            object["name"] = .string("Person \(n)")
            object["email"] = .string("p\(n)@example.com")
            return .upsert(collection: "people", record: IncomingRecord(id: "p\(n)", object: object))
        }
        let committed = DispatchSemaphore(value: 0)
        store.commitLater(writes) { _ in committed.signal() }
        XCTAssertEqual(committed.wait(timeout: .now() + 60), .success)
        let base = try XCTUnwrap(store.list("people"))
        XCTAssertEqual(base.snapshot.totalRowCount, 20_000)

        let searches = 4
        let go = DispatchSemaphore(value: 0), done = DispatchGroup()
        let found = Locked<[Int: Bool]>([:])
        for n in 0..<searches {
            done.enter()
            Thread {
                go.wait()
                let query = ListQuery(text: "p\(n * 1000 + 7)@", filters: [], searchFields: [name, email])
                let result = try? store.searched(base, query: query)
                found.withLock { $0[n] = result?.snapshot.contains(rowID: "p\(n * 1000 + 7)") == true && result?.snapshot.totalRowCount == 1 }
                done.leave()
            }.start()
        }
        for _ in 0..<searches { go.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "every search answered")
        XCTAssertEqual(found.withLock { $0 }, Dictionary(uniqueKeysWithValues: (0..<searches).map { ($0, true) }), "each found its record")
        XCTAssertEqual(store.corpora.withLock { $0.begun }, 1, "one corpus made for the four searches")
        XCTAssertEqual(store.searchCorpusRecords.first?.records, 20_000)
    }

    /// A store serving `people`, searched by name and email.
    private func peopleSearchingNamesAndEmails() throws -> ViewModelStore {
        let definitions = try ListDefinitions.decode(JSONParser.parse(#"""
        {"people":{"search":{"fields":["name","email"]},
                   "sections":[{"key":"all","source":"people","type":"all","title":"All","row":{"type":"person","title":"{name}"}}]}}
        """#))
        return try ViewModelStore(definitions: definitions, store: MemoryStore(), log: Log(level: .error))
    }

    private func write(_ store: ViewModelStore, _ id: String, name: String, email: String) throws {
        var object = JSONObject()
        object["name"] = .string(name)
        object["email"] = .string(email)
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        store.commitLater([.upsert(collection: "people", record: IncomingRecord(id: id, object: object))]) { result in
            if case .failure(let error) = result { failure.withLock { $0 = "\(error)" } }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the commit answered")
        if let error = failure.withLock({ $0 }) { XCTFail(error) }
    }
}
