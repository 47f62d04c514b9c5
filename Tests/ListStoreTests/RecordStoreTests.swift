import Foundation
import ListModel
import ListStore
import Locking
import XCTest

/// The contract every store keeps. Its checks are not tests by themselves: each store's test
/// class (``MemoryStoreTests``, ``SQLiteStoreTests``) runs every one of them as its own test, so
/// both stores show up as separate classes with the whole contract (XCTest on Linux finds only
/// test methods a class declares).
class RecordStoreContract: XCTestCase {
    /// A new, empty store of the kind under test.
    func makeStore() throws -> RecordStore {
        throw NSError(domain: "RecordStoreContract", code: 1, userInfo: [NSLocalizedDescriptionKey: "a store's test class provides makeStore()"])
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    func checkPreparedFieldsKeepTheVersionOfEachValue() throws {
        let store = try makeStore()
        guard store.tracksFieldVersions else { return }  // a store that keeps none says so; callers fall back
        let owner = try XCTUnwrap(FieldPath("owner"))
        _ = try store.commit([.upsert(collection: "orders", id: "early", json: bytes(#"{"id":"early","owner":"ann"}"#))])
        try store.prepareField(owner, in: "orders")
        let ann = try XCTUnwrap(ScalarKey(.string("ann")))
        let bob = try XCTUnwrap(ScalarKey(.string("bob")))
        XCTAssertEqual(try store.fieldVersion(owner, in: "orders", key: ann), 1, "records stored before count at their commit")
        XCTAssertNil(try store.fieldVersion(owner, in: "orders", key: bob))
        let moved = try store.commit([.upsert(collection: "orders", id: "early", json: bytes(#"{"id":"early","owner":"bob"}"#))])
        XCTAssertEqual(try store.fieldVersion(owner, in: "orders", key: ann), moved.sequence, "the old owner's value moves")
        XCTAssertEqual(try store.fieldVersion(owner, in: "orders", key: bob), moved.sequence, "and the new owner's")
        _ = try store.commit([.upsert(collection: "other", id: "x", json: bytes(#"{"id":"x","owner":"bob"}"#))])
        XCTAssertEqual(try store.fieldVersion(owner, in: "orders", key: bob), moved.sequence, "another collection does not count")
        let deleted = try store.commit([.delete(collection: "orders", id: "early")])
        XCTAssertEqual(try store.fieldVersion(owner, in: "orders", key: bob), deleted.sequence)
        try store.prepareField(owner, in: "orders")
        XCTAssertEqual(try store.fieldVersion(owner, in: "orders", key: ann), moved.sequence, "preparing again changes nothing")
        // Values are told apart by code points: "Karl" and "\u{212A}arl" (a Kelvin sign), equal
        // to Swift's String, are two keys, and a record moving from one to the other moves both.
        let karl = try XCTUnwrap(ScalarKey(.string("Karl")))
        let kelvin = try XCTUnwrap(ScalarKey(.string("\u{212A}arl")))
        XCTAssertNotEqual(karl, kelvin)
        let toKarl = try store.commit([.upsert(collection: "orders", id: "k", json: bytes(#"{"id":"k","owner":"Karl"}"#))])
        XCTAssertEqual(try store.fieldVersion(owner, in: "orders", key: karl), toKarl.sequence)
        XCTAssertNil(try store.fieldVersion(owner, in: "orders", key: kelvin), "another user's value")
        let toKelvin = try store.commit([.upsert(collection: "orders", id: "k", json: bytes(#"{"id":"k","owner":"\#u{212A}arl"}"#))])
        XCTAssertEqual(try store.fieldVersion(owner, in: "orders", key: karl), toKelvin.sequence, "the old owner's value moves")
        XCTAssertEqual(try store.fieldVersion(owner, in: "orders", key: kelvin), toKelvin.sequence, "and the new owner's")
    }

    func checkCommitsTakeOneSequenceEachAndRememberTheCollection() throws {
        let store = try makeStore()
        XCTAssertEqual(try store.lastSequence(), 0)
        let first = try store.commit([.upsert(collection: "people", id: "a", json: bytes(#"{"id":"a"}"#))])
        XCTAssertEqual(first.sequence, 1)
        XCTAssertEqual(first.existed, [false])
        let second = try store.commit([.upsert(collection: "people", id: "a", json: bytes(#"{"id":"a","n":1}"#)),
                                       .upsert(collection: "teams", id: "t", json: bytes(#"{"id":"t"}"#))])
        XCTAssertEqual(second.sequence, 2)
        XCTAssertEqual(second.existed, [true, false])
        XCTAssertEqual(try store.collectionSequences(), ["people": 2, "teams": 2])
        XCTAssertEqual(try store.record(in: "people", id: "a")?.json, bytes(#"{"id":"a","n":1}"#))
        let third = try store.commit([.delete(collection: "teams", id: "t")])
        XCTAssertEqual(third.sequence, 3)
        XCTAssertEqual(try store.collectionSequences()["teams"], 3)
        XCTAssertNil(try store.record(in: "teams", id: "t"))
    }

    func checkGroupsCommitTogetherEachWithItsOwnNumber() throws {
        let store = try makeStore()
        let results = try store.commit(groups: [
            [.upsert(collection: "a", id: "1", json: bytes("{}"))],
            [.delete(collection: "a", id: "missing")],
            [.upsert(collection: "b", id: "2", json: bytes("{}")), .upsert(collection: "a", id: "1", json: bytes("[]"))],
        ])
        XCTAssertEqual(results.map(\.sequence), [1, 1, 2], "a group that changes nothing takes no number")
        XCTAssertEqual(results.map(\.changedAnything), [true, false, true])
        XCTAssertEqual(results[2].existed, [false, true])
        XCTAssertEqual(try store.lastSequence(), 2)
        XCTAssertEqual(try store.collectionSequences(), ["a": 2, "b": 2])
        XCTAssertEqual(try store.record(in: "a", id: "1")?.json, bytes("[]"))
    }

    /// A commit of more records than one statement sends (PostgreSQL's are cut at 32 MiB of
    /// JSON) is still one commit: each group its number, each write's result and previous JSON
    /// its own across the cut.
    func checkACommitLargerThanAStatementIsOneCommit() throws {
        let store = try makeStore()
        func record(_ n: Int) -> [UInt8] { bytes("{\"n\":\(n),\"pad\":\"" + String(repeating: "x", count: 1 << 20) + "\"}") }
        _ = try store.commit(groups: [(0..<10).map { .upsert(collection: "a", id: "r\($0)", json: record($0)) }], previousIn: [])
        let results = try store.commit(groups: [(0..<25).map { .upsert(collection: "a", id: "r\($0)", json: record($0 + 100)) },
                                                (25..<45).map { .upsert(collection: "a", id: "r\($0)", json: record($0 + 100)) }],
                                       previousIn: ["a"])
        XCTAssertEqual(results.map(\.sequence), [2, 3])
        XCTAssertEqual(results[0].existed, (0..<25).map { $0 < 10 })
        XCTAssertEqual(results[1].existed, [Bool](repeating: false, count: 20))
        XCTAssertEqual(results[0].previous.map { $0.map { Array($0.prefix(8)) } }, (0..<25).map { $0 < 10 ? Array(record($0).prefix(8)) : nil })
        XCTAssertEqual(try store.lastSequence(), 3)
        let stored = try store.records(in: "a", after: nil, limit: 100)
        XCTAssertEqual(stored.count, 45)
        XCTAssertEqual(try store.record(in: "a", id: "r44")?.json, record(144))
    }

    func checkDeletingAMissingRecordChangesNothing() throws {
        let store = try makeStore()
        let result = try store.commit([.delete(collection: "people", id: "nobody")])
        XCTAssertFalse(result.changedAnything)
        XCTAssertEqual(result.existed, [false])
        XCTAssertEqual(try store.lastSequence(), 0)
    }

    func checkRecordsPageByIdInCodePointOrder() throws {
        let store = try makeStore()
        let ids = ["b", "a", "Z", "é", "a1", "c"]
        _ = try store.commit(ids.map { .upsert(collection: "x", id: $0, json: bytes("{}")) })
        XCTAssertEqual(try store.allRecords(in: "x").map(\.id), ["Z", "a", "a1", "b", "c", "é"])
        XCTAssertEqual(try store.records(in: "x", after: "a", limit: 2).map(\.id), ["a1", "b"])
        XCTAssertEqual(try store.records(in: "x", after: "c", limit: 10).map(\.id), ["é"])
        // The same order in pages as they are read; none for an empty collection.
        let pages = Locked<[[String]]>([])
        try store.forEachPage(in: "x", pageSize: 4) { page in pages.withLock { $0.append(page.map(\.id)) } }
        try store.forEachPage(in: "nothing", pageSize: 4) { page in pages.withLock { $0.append(page.map(\.id)) } }
        XCTAssertEqual(pages.withLock { $0 }, [["Z", "a", "a1", "b"], ["c", "é"]])
        // Some ids, in the same order whatever order they are asked in; missing ones skipped,
        // one asked twice read once, each with its version.
        let some = try store.records(in: "x", ids: ["é", "missing", "a", "Z", "a"])
        XCTAssertEqual(some.map(\.id), ["Z", "a", "é"])
        XCTAssertEqual(some.map(\.version), [1, 1, 1])
        XCTAssertEqual(try store.records(in: "nothing", ids: ["a"]), [])
        XCTAssertEqual(try store.records(in: "x", ids: []), [])
    }

    /// A record read by id carries its version: the number of the commit that last wrote it.
    func checkARecordCarriesTheNumberOfItsLastWrite() throws {
        let store = try makeStore()
        _ = try store.commit([.upsert(collection: "c", id: "a", json: bytes("{}"))])
        _ = try store.commit(groups: [[.upsert(collection: "c", id: "b", json: bytes("{}"))],
                                      [.upsert(collection: "c", id: "a", json: bytes("[]")), .upsert(collection: "c", id: "x", json: bytes("{}"))]])
        _ = try store.commit(groups: [[.upsert(collection: "c", id: "b", json: bytes("[]")), .delete(collection: "c", id: "x")],
                                      [.delete(collection: "c", id: "missing")]])
        XCTAssertEqual(try store.record(in: "c", id: "a")?.version, 3)
        XCTAssertEqual(try store.record(in: "c", id: "b")?.version, 4)
        XCTAssertNil(try store.record(in: "c", id: "x"))
    }

    /// A group that changes one collection and deletes a missing record of another touches only
    /// the first: the other keeps its number.
    func checkAMissedDeleteDoesNotTouchItsCollection() throws {
        let store = try makeStore()
        _ = try store.commit([.upsert(collection: "b", id: "1", json: bytes("{}"))])
        let result = try store.commit([.upsert(collection: "a", id: "1", json: bytes("{}")), .delete(collection: "b", id: "missing")])
        XCTAssertEqual(result.sequence, 2)
        XCTAssertEqual(try store.collectionSequences(), ["a": 2, "b": 1])
    }

    /// Writes to the named collections hand back each record's JSON as it was before the write;
    /// other collections hand back nil, and `existed` is unaffected by the choice.
    func checkCommitHandsBackPreviousJSONOfNamedCollections() throws {
        let store = try makeStore()
        _ = try store.commit([.upsert(collection: "people", id: "a", json: bytes(#"{"owner":"u1"}"#)),
                              .upsert(collection: "teams", id: "t", json: bytes(#"{"n":1}"#))])
        let results = try store.commit(groups: [
            [.upsert(collection: "people", id: "a", json: bytes(#"{"owner":"u2"}"#)),
             .upsert(collection: "people", id: "b", json: bytes(#"{"owner":"u3"}"#)),
             .upsert(collection: "teams", id: "t", json: bytes(#"{"n":2}"#))],
            [.upsert(collection: "people", id: "a", json: bytes(#"{"owner":"u4"}"#)),
             .delete(collection: "people", id: "b"),
             .delete(collection: "people", id: "missing")],
        ], previousIn: ["people"])
        XCTAssertEqual(results.map(\.sequence), [2, 3])
        XCTAssertEqual(results[0].existed, [true, false, true])
        XCTAssertEqual(results[0].previous, [bytes(#"{"owner":"u1"}"#), nil, nil], "teams was not asked about")
        XCTAssertEqual(results[1].existed, [true, true, false])
        XCTAssertEqual(results[1].previous, [bytes(#"{"owner":"u2"}"#), bytes(#"{"owner":"u3"}"#), nil],
                       "a later group sees the earlier group's writes")
        let unasked = try store.commit([.upsert(collection: "people", id: "a", json: bytes("{}"))])
        XCTAssertEqual(unasked.previous, [nil])
        XCTAssertEqual(unasked.existed, [true])
    }

    /// Records whose JSON holds a scalar at a (nested) field are found by it, before and after
    /// the field is prepared, and writes after preparing are found too. A store may return more
    /// than the matches; every match must be there.
    func checkRecordsAreFoundByFieldValue() throws {
        let store = try makeStore()
        let owner = try XCTUnwrap(FieldPath("meta.owner"))
        func matches(_ value: JSONValue) throws -> [String] {
            try store.records(in: "notes", field: owner, equals: value).filter { record in
                guard case .object(let object)? = try? JSONParser.parse(record.json) else { return false }
                return owner.lookup(in: object) == value
            }.map(\.id)
        }
        _ = try store.commit([
            .upsert(collection: "notes", id: "n1", json: bytes(#"{"meta":{"owner":"ann"}}"#)),
            .upsert(collection: "notes", id: "n2", json: bytes(#"{"meta":{"owner":"bob"}}"#)),
            .upsert(collection: "notes", id: "n3", json: bytes(#"{"meta":{"owner":7}}"#)),
            .upsert(collection: "notes", id: "n4", json: bytes(#"{"meta":{"owner":true}}"#)),
            .upsert(collection: "notes", id: "n5", json: bytes(#"{"owner":"ann"}"#)),
            .upsert(collection: "other", id: "o1", json: bytes(#"{"meta":{"owner":"ann"}}"#)),
        ])
        XCTAssertEqual(try matches(.string("ann")), ["n1"])
        try store.prepareField(owner, in: "notes")
        try store.prepareField(owner, in: "notes")  // preparing twice is harmless
        XCTAssertEqual(try matches(.string("ann")), ["n1"])
        XCTAssertEqual(try matches(.string("bob")), ["n2"])
        XCTAssertEqual(try matches(.int(7)), ["n3"])
        XCTAssertEqual(try matches(.bool(true)), ["n4"])
        // An integer equals the same number written in any form; PostgreSQL's index of the text
        // as written found only `7` (and a partition built there lost the others).
        _ = try store.commit([.upsert(collection: "notes", id: "f1", json: bytes(#"{"meta":{"owner":7.0}}"#)),
                              .upsert(collection: "notes", id: "f2", json: bytes(#"{"meta":{"owner":0.7e1}}"#)),
                              .upsert(collection: "notes", id: "f3", json: bytes(#"{"meta":{"owner":70E-1}}"#)),
                              .upsert(collection: "notes", id: "f4", json: bytes(#"{"meta":{"owner":"7.0"}}"#)),
                              .upsert(collection: "notes", id: "f5", json: bytes(#"{"meta":{"owner":-0}}"#)),
                              .upsert(collection: "notes", id: "f6", json: bytes(#"{"meta":{"owner":7.5}}"#))])
        XCTAssertEqual(try matches(.int(7)), ["f1", "f2", "f3", "n3"])
        XCTAssertEqual(try matches(.int(0)), ["f5"])
        _ = try store.commit([.delete(collection: "notes", id: "f1"), .delete(collection: "notes", id: "f2"),
                              .delete(collection: "notes", id: "f3"), .delete(collection: "notes", id: "f4"),
                              .delete(collection: "notes", id: "f5"), .delete(collection: "notes", id: "f6")])
        XCTAssertEqual(try matches(.string("nobody")), [])
        let found = try store.records(in: "notes", field: owner, equals: .string("ann"))
        XCTAssertFalse(found.contains { $0.id == "o1" }, "another collection's records never come back")
        XCTAssertEqual(found.first { $0.id == "n1" }?.json, bytes(#"{"meta":{"owner":"ann"}}"#))
        _ = try store.commit([.upsert(collection: "notes", id: "n0", json: bytes(#"{"meta":{"owner":"ann"}}"#)),
                              .upsert(collection: "notes", id: "n1", json: bytes(#"{"meta":{"owner":"bob"}}"#))])
        XCTAssertEqual(try matches(.string("ann")), ["n0"])
        XCTAssertEqual(try matches(.string("bob")), ["n1", "n2"], "by id ascending")
        // U+0000 in a value (SQLite's json_extract reads a string only up to it; PostgreSQL's
        // json refuses to read a field past the escape), and the six characters \u0000.
        _ = try store.commit([.upsert(collection: "notes", id: "z1", json: bytes(#"{"meta":{"owner":"bob\u0000y"}}"#)),
                              .upsert(collection: "notes", id: "z2", json: bytes(#"{"meta":{"owner":"bob\\u0000y"}}"#))])
        XCTAssertEqual(try matches(.string("bob\u{0}y")), ["z1"])
        XCTAssertEqual(try matches(.string(#"bob\u0000y"#)), ["z2"])
        XCTAssertEqual(try matches(.string("bob")), ["n1", "n2"])
        // Numbers by exact value, whatever their spelling, past 2^53 too.
        _ = try store.commit([.upsert(collection: "notes", id: "v1", json: bytes(#"{"meta":{"owner":2.50}}"#)),
                              .upsert(collection: "notes", id: "v2", json: bytes(#"{"meta":{"owner":9007199254740993.0}}"#)),
                              .upsert(collection: "notes", id: "v3", json: bytes(#"{"meta":{"owner":9007199254740992}}"#))])
        XCTAssertEqual(try matches(.int(9007199254740993)), ["v2"])
        XCTAssertEqual(try matches(.int(9007199254740992)), ["v3"])
        XCTAssertEqual(try matches(try JSONParser.parse("25e-1")), ["v1"])
    }

    /// A record's JSON comes back byte for byte: spacing, member order, escapes and numbers as written.
    func checkRecordsKeepTheirExactBytes() throws {
        let store = try makeStore()
        let text = #"{ "b" : 1.50,"a":[ true ,null],"é":"\u00e9\n", "b":2 }"#
        _ = try store.commit([.upsert(collection: "x", id: "1", json: bytes(text))])
        XCTAssertEqual(try store.record(in: "x", id: "1")?.json, bytes(text))
        XCTAssertEqual(try store.allRecords(in: "x").first?.json, bytes(text))
    }

    func checkDefinitionsTakeTheSequenceAndKeepCountingRevisions() throws {
        let store = try makeStore()
        _ = try store.commit([.upsert(collection: "people", id: "a", json: bytes(#"{"id":"a"}"#))])
        XCTAssertEqual(try store.allDefinitions(), [])
        XCTAssertNil(try store.saveDefinition(list: "inbox", json: nil), "removing what is not stored changes nothing")
        XCTAssertEqual(try store.lastSequence(), 1)
        let first = try XCTUnwrap(try store.saveDefinition(list: "inbox", json: bytes(#"{"sections":[]}"#)))
        XCTAssertEqual(first.stored, StoredDefinition(list: "inbox", json: bytes(#"{"sections":[]}"#), revision: 1, sequence: 2))
        XCTAssertFalse(first.replaced, "nothing was in force: created")
        let second = try XCTUnwrap(try store.saveDefinition(list: "inbox", json: bytes(#"{"title":"In","sections":[]}"#)))
        XCTAssertEqual(second.stored.revision, 2)
        XCTAssertEqual(second.stored.sequence, 3)
        XCTAssertTrue(second.replaced)
        let record = try store.commit([.upsert(collection: "people", id: "b", json: bytes(#"{"id":"b"}"#))])
        XCTAssertEqual(record.sequence, 4, "records and definitions share one sequence")
        let removed = try XCTUnwrap(try store.saveDefinition(list: "inbox", json: nil))
        XCTAssertEqual(removed.stored, StoredDefinition(list: "inbox", json: nil, revision: 3, sequence: 5))
        XCTAssertTrue(removed.replaced)
        XCTAssertNil(try store.saveDefinition(list: "inbox", json: nil))
        _ = try store.saveDefinition(list: "about", json: bytes(#"{"sections":[]}"#))
        XCTAssertEqual(try store.allDefinitions().map(\.list), ["about", "inbox"], "removed ones are kept, by name")
        XCTAssertEqual(try store.allDefinitions().last?.revision, 3)
        XCTAssertEqual(try store.lastSequence(), 6)
        let again = try XCTUnwrap(try store.saveDefinition(list: "inbox", json: bytes(#"{"sections":[]}"#)))
        XCTAssertEqual(again.stored.revision, 4, "a revision is never reused")
        XCTAssertFalse(again.replaced, "the removed one was not in force")
        XCTAssertEqual(try store.takeSequence(), 8)
        XCTAssertEqual(try store.lastSequence(), 8)
        XCTAssertEqual(try store.commit([.upsert(collection: "people", id: "c", json: bytes("{}"))]).sequence, 9)
    }

    /// A conditional change is checked against the stored state in its commit: a stale revision,
    /// `If-None-Match: *` on a stored definition, `*` on none, all store nothing and take no number.
    func checkConditionalDefinitionChangesStoreOnlyWhenTheExpectationHolds() throws {
        let store = try makeStore()
        let json = bytes(#"{"sections":[]}"#)
        XCTAssertEqual(try store.saveDefinition(list: "inbox", json: json, expecting: .noneOf([nil])), .failed,
                       "`*` (a stored definition in force) does not hold of none")
        XCTAssertEqual(try store.saveDefinition(list: "inbox", json: json, expecting: .oneOf([1])), .failed)
        XCTAssertEqual(try store.lastSequence(), 0, "a failed expectation takes no number")
        guard case .saved(let first, false) = try store.saveDefinition(list: "inbox", json: json, expecting: .oneOf([nil])) else {
            return XCTFail("create-only holds of none")
        }
        XCTAssertEqual(first.revision, 1)
        XCTAssertEqual(try store.saveDefinition(list: "inbox", json: json, expecting: .oneOf([nil])), .failed, "create-only, once")
        XCTAssertEqual(try store.saveDefinition(list: "inbox", json: json, expecting: .oneOf([2, 3])), .failed, "not at that revision")
        guard case .saved(let second, true) = try store.saveDefinition(list: "inbox", json: bytes(#"{"title":"In","sections":[]}"#),
                                                                      expecting: .oneOf([1])) else {
            return XCTFail("the current revision holds")
        }
        XCTAssertEqual(second.revision, 2)
        XCTAssertEqual(try store.saveDefinition(list: "inbox", json: json, expecting: .oneOf([1])), .failed, "the stale revision")
        XCTAssertEqual(try store.saveDefinition(list: "inbox", json: nil, expecting: .oneOf([1])), .failed, "a removal too")
        XCTAssertEqual(try store.saveDefinition(list: "inbox", json: nil, expecting: .noneOf([2])), .failed)
        XCTAssertEqual(try store.allDefinitions(), [StoredDefinition(list: "inbox", json: bytes(#"{"title":"In","sections":[]}"#),
                                                                     revision: 2, sequence: 2)], "nothing refused was stored")
        guard case .saved(let removed, true) = try store.saveDefinition(list: "inbox", json: nil, expecting: .noneOf([nil])) else {
            return XCTFail("`*` holds of a stored definition")
        }
        XCTAssertEqual(removed.revision, 3)
        XCTAssertEqual(try store.saveDefinition(list: "inbox", json: nil, expecting: .oneOf([])), .nothingToRemove,
                       "nothing to remove comes before the expectation")
        XCTAssertEqual(try store.saveDefinition(list: "inbox", json: json, expecting: .oneOf([3])), .failed,
                       "a removed definition's revision is not in force")
        guard case .saved(let again, false) = try store.saveDefinition(list: "inbox", json: json, expecting: .oneOf([nil])) else {
            return XCTFail("create-only holds once it is removed")
        }
        XCTAssertEqual(again.revision, 4)
        XCTAssertEqual(try store.lastSequence(), 4)
    }

    func checkServedDefinitionsAreKeptAndReplaced() throws {
        let store = try makeStore()
        XCTAssertEqual(try store.servedDefinitions(), [:])
        let high = ServedDefinition(fingerprint: 0xF000_0000_0000_0001, sequence: 0)
        try store.recordServed(["people": high, "orders": ServedDefinition(fingerprint: 7, sequence: 3)])
        try store.recordServed(["orders": ServedDefinition(fingerprint: 8, sequence: 5)])
        XCTAssertEqual(try store.servedDefinitions(), ["people": high, "orders": ServedDefinition(fingerprint: 8, sequence: 5)])
        XCTAssertEqual(try store.lastSequence(), 0, "recording takes no change number")
    }

    /// A changed definition takes one number for all the lists it names, and none when the store
    /// records those fingerprints already (another instance starting at once came first).
    func checkServedChangesTakeOneNumberAndNoneForWhatIsRecorded() throws {
        let store = try makeStore()
        try store.recordServed(["people": ServedDefinition(fingerprint: 1, sequence: 0)])
        let first = try store.recordServedChange(["people": 2, "orders": 3])
        let number = try store.lastSequence()
        XCTAssertGreaterThan(number, 0)
        XCTAssertEqual(first, ["people": ServedDefinition(fingerprint: 2, sequence: number),
                               "orders": ServedDefinition(fingerprint: 3, sequence: number)])
        XCTAssertEqual(try store.recordServedChange(["people": 2, "orders": 3]), first, "recorded already: the same answer")
        XCTAssertEqual(try store.lastSequence(), number, "and no number taken")
        let later = try store.recordServedChange(["people": 2, "orders": 4])
        XCTAssertEqual(later["people"], ServedDefinition(fingerprint: 2, sequence: number))
        XCTAssertEqual(later["orders"], ServedDefinition(fingerprint: 4, sequence: number + 1))
        XCTAssertEqual(try store.servedDefinitions(), later)
    }
}

final class MemoryStoreTests: RecordStoreContract {
    override func makeStore() throws -> RecordStore { MemoryStore() }

    func testCommitsTakeOneSequenceEachAndRememberTheCollection() throws { try checkCommitsTakeOneSequenceEachAndRememberTheCollection() }
    func testGroupsCommitTogetherEachWithItsOwnNumber() throws { try checkGroupsCommitTogetherEachWithItsOwnNumber() }
    func testACommitLargerThanAStatementIsOneCommit() throws { try checkACommitLargerThanAStatementIsOneCommit() }
    func testDeletingAMissingRecordChangesNothing() throws { try checkDeletingAMissingRecordChangesNothing() }
    func testRecordsPageByIdInCodePointOrder() throws { try checkRecordsPageByIdInCodePointOrder() }
    func testViewsAreSavedTouchedAndDeleted() throws { try checkViewsAreSavedTouchedAndDeleted() }
    func testUpdatingADeletedViewStoresNothing() throws { try checkUpdatingADeletedViewStoresNothing() }
    func testAViewChangeFromAStaleReadStoresNothing() throws { try checkAViewChangeFromAStaleReadStoresNothing() }
    func testCommitHandsBackPreviousJSONOfNamedCollections() throws { try checkCommitHandsBackPreviousJSONOfNamedCollections() }
    func testAMissedDeleteDoesNotTouchItsCollection() throws { try checkAMissedDeleteDoesNotTouchItsCollection() }
    func testARecordCarriesTheNumberOfItsLastWrite() throws { try checkARecordCarriesTheNumberOfItsLastWrite() }
    func testRecordsAreFoundByFieldValue() throws { try checkRecordsAreFoundByFieldValue() }
    func testRecordsKeepTheirExactBytes() throws { try checkRecordsKeepTheirExactBytes() }
    func testViewsKeepTheirOwner() throws { try checkViewsKeepTheirOwner() }
    func testPreparedFieldsKeepTheVersionOfEachValue() throws { try checkPreparedFieldsKeepTheVersionOfEachValue() }
    func testDefinitionsTakeTheSequenceAndKeepCountingRevisions() throws { try checkDefinitionsTakeTheSequenceAndKeepCountingRevisions() }
    func testServedDefinitionsAreKeptAndReplaced() throws { try checkServedDefinitionsAreKeptAndReplaced() }
    func testServedChangesTakeOneNumberAndNoneForWhatIsRecorded() throws { try checkServedChangesTakeOneNumberAndNoneForWhatIsRecorded() }
    func testConditionalDefinitionChangesStoreOnlyWhenTheExpectationHolds() throws {
        try checkConditionalDefinitionChangesStoreOnlyWhenTheExpectationHolds()
    }
    func testCommitsRecordDeliveriesCoalescedPerListAndPartition() throws { try checkCommitsRecordDeliveriesCoalescedPerListAndPartition() }
    func testDefinitionChangesRecordTheirDeliveries() throws { try checkDefinitionChangesRecordTheirDeliveries() }
    func testAPartitionWithANulIsRecordedAndClaimedAsAsked() throws { try checkAPartitionWithANulIsRecordedAndClaimedAsAsked() }
    func testAClaimedDeliveryIsHeldUntilAcceptedFailedOrItsLeaseEnds() throws { try checkAClaimedDeliveryIsHeldUntilAcceptedFailedOrItsLeaseEnds() }
    func testAcceptedDeliveriesGoUnlessALaterVersionCame() throws { try checkAcceptedDeliveriesGoUnlessALaterVersionCame() }
    func testAnAcceptanceFromAWorkerThatLostTheClaimLeavesTheRowToItsHolder() throws { try checkAnAcceptanceFromAWorkerThatLostTheClaimLeavesTheRowToItsHolder() }
    func testFailedDeliveriesWaitForTheirRetryAndCountAttempts() throws { try checkFailedDeliveriesWaitForTheirRetryAndCountAttempts() }
    func testDeliveriesOfRemovedWebhooksAreDropped() throws { try checkDeliveriesOfRemovedWebhooksAreDropped() }
    func testAReleasedDeliveryKeepsItsAttemptsAndIsDueAsItWas() throws { try checkAReleasedDeliveryKeepsItsAttemptsAndIsDueAsItWas() }
    func testClaimsTakeTheLongestWaitingRowsFirst() throws { try checkClaimsTakeTheLongestWaitingRowsFirst() }
}

final class SQLiteStoreTests: RecordStoreContract {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        if FileManager.default.fileExists(atPath: folder.path) { try FileManager.default.removeItem(at: folder) }
    }

    override func makeStore() throws -> RecordStore {
        try SQLiteStore(path: folder.appendingPathComponent("db/test.sqlite").path)
    }

    func testCommitsTakeOneSequenceEachAndRememberTheCollection() throws { try checkCommitsTakeOneSequenceEachAndRememberTheCollection() }
    func testGroupsCommitTogetherEachWithItsOwnNumber() throws { try checkGroupsCommitTogetherEachWithItsOwnNumber() }
    func testACommitLargerThanAStatementIsOneCommit() throws { try checkACommitLargerThanAStatementIsOneCommit() }
    func testDeletingAMissingRecordChangesNothing() throws { try checkDeletingAMissingRecordChangesNothing() }
    func testRecordsPageByIdInCodePointOrder() throws { try checkRecordsPageByIdInCodePointOrder() }
    func testViewsAreSavedTouchedAndDeleted() throws { try checkViewsAreSavedTouchedAndDeleted() }
    func testUpdatingADeletedViewStoresNothing() throws { try checkUpdatingADeletedViewStoresNothing() }
    func testAViewChangeFromAStaleReadStoresNothing() throws { try checkAViewChangeFromAStaleReadStoresNothing() }
    func testCommitHandsBackPreviousJSONOfNamedCollections() throws { try checkCommitHandsBackPreviousJSONOfNamedCollections() }
    func testAMissedDeleteDoesNotTouchItsCollection() throws { try checkAMissedDeleteDoesNotTouchItsCollection() }
    func testARecordCarriesTheNumberOfItsLastWrite() throws { try checkARecordCarriesTheNumberOfItsLastWrite() }
    func testRecordsAreFoundByFieldValue() throws { try checkRecordsAreFoundByFieldValue() }
    func testRecordsKeepTheirExactBytes() throws { try checkRecordsKeepTheirExactBytes() }
    func testViewsKeepTheirOwner() throws { try checkViewsKeepTheirOwner() }
    func testPreparedFieldsKeepTheVersionOfEachValue() throws { try checkPreparedFieldsKeepTheVersionOfEachValue() }
    func testDefinitionsTakeTheSequenceAndKeepCountingRevisions() throws { try checkDefinitionsTakeTheSequenceAndKeepCountingRevisions() }
    func testServedDefinitionsAreKeptAndReplaced() throws { try checkServedDefinitionsAreKeptAndReplaced() }
    func testServedChangesTakeOneNumberAndNoneForWhatIsRecorded() throws { try checkServedChangesTakeOneNumberAndNoneForWhatIsRecorded() }
    func testConditionalDefinitionChangesStoreOnlyWhenTheExpectationHolds() throws {
        try checkConditionalDefinitionChangesStoreOnlyWhenTheExpectationHolds()
    }
    func testCommitsRecordDeliveriesCoalescedPerListAndPartition() throws { try checkCommitsRecordDeliveriesCoalescedPerListAndPartition() }
    func testDefinitionChangesRecordTheirDeliveries() throws { try checkDefinitionChangesRecordTheirDeliveries() }
    func testAPartitionWithANulIsRecordedAndClaimedAsAsked() throws { try checkAPartitionWithANulIsRecordedAndClaimedAsAsked() }
    func testAClaimedDeliveryIsHeldUntilAcceptedFailedOrItsLeaseEnds() throws { try checkAClaimedDeliveryIsHeldUntilAcceptedFailedOrItsLeaseEnds() }
    func testAcceptedDeliveriesGoUnlessALaterVersionCame() throws { try checkAcceptedDeliveriesGoUnlessALaterVersionCame() }
    func testAnAcceptanceFromAWorkerThatLostTheClaimLeavesTheRowToItsHolder() throws { try checkAnAcceptanceFromAWorkerThatLostTheClaimLeavesTheRowToItsHolder() }
    func testFailedDeliveriesWaitForTheirRetryAndCountAttempts() throws { try checkFailedDeliveriesWaitForTheirRetryAndCountAttempts() }
    func testDeliveriesOfRemovedWebhooksAreDropped() throws { try checkDeliveriesOfRemovedWebhooksAreDropped() }
    func testAReleasedDeliveryKeepsItsAttemptsAndIsDueAsItWas() throws { try checkAReleasedDeliveryKeepsItsAttemptsAndIsDueAsItWas() }
    func testClaimsTakeTheLongestWaitingRowsFirst() throws { try checkClaimsTakeTheLongestWaitingRowsFirst() }

    func testEverythingSurvivesReopening() throws {
        let path = folder.appendingPathComponent("reopen.sqlite").path
        do {
            let store = try SQLiteStore(path: path)
            _ = try store.commit([.upsert(collection: "people", id: "a", json: Array(#"{"id":"a"}"#.utf8))])
            try store.saveView(StoredView(id: "v", list: "l", hidden: ["k\"ey", "é😀", "a\\b\n"], lastUsed: 7))
            _ = try store.saveDefinition(list: "l", json: Array(#"{"sections":[]}"#.utf8))
            store.close()
        }
        let store = try SQLiteStore(path: path)
        XCTAssertEqual(try store.lastSequence(), 2)
        XCTAssertEqual(try store.allDefinitions(), [StoredDefinition(list: "l", json: Array(#"{"sections":[]}"#.utf8), revision: 1, sequence: 2)])
        XCTAssertEqual(try store.record(in: "people", id: "a")?.json, Array(#"{"id":"a"}"#.utf8))
        XCTAssertEqual(try store.allViews(), [StoredView(id: "v", list: "l", hidden: ["k\"ey", "é😀", "a\\b\n"], lastUsed: 7)])
    }
}

extension RecordStore {
    /// The definition writes with no webhook deliveries, as the contract's checks of their other
    /// effects make them.
    func saveDefinition(list: String, json: [UInt8]?, expecting: DefinitionExpectation) throws(StoreError) -> DefinitionSave {
        try saveDefinition(list: list, json: json, expecting: expecting, deliveries: nil)
    }
    func takeSequence() throws(StoreError) -> Int64 { try takeSequence(deliveries: []) }
    func recordServedChange(_ fingerprints: [String: UInt64]) throws(StoreError) -> [String: ServedDefinition] {
        try recordServedChange(fingerprints, deliveries: [])
    }

    /// An unconditional definition change, as the contract's older checks make it: nil when
    /// there was nothing to remove.
    func saveDefinition(list: String, json: [UInt8]?) throws(StoreError) -> (stored: StoredDefinition, replaced: Bool)? {
        switch try saveDefinition(list: list, json: json, expecting: .any) {
        case .saved(let stored, let replaced): (stored, replaced)
        case .nothingToRemove, .failed: nil
        }
    }
}
