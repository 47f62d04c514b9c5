import ListStore
import XCTest
@testable import ListModel
@testable import SectionalService

/// The patches of one record in a group are merged in turn and written once, where the first of
/// them was; another write of the record between them ends the run.
final class PatchFoldingTests: XCTestCase {
    private func patch(_ id: String, _ changes: String) throws -> ViewModelStore.Write {
        .patch(RecordPatch(collection: "c", id: id, changes: try XCTUnwrap(JSONParser.parse(Array(changes.utf8)).objectValue)))
    }

    private func upsert(_ id: String, _ json: String) throws -> ViewModelStore.Write {
        .upsert(collection: "c", record: IncomingRecord(id: id, object: try XCTUnwrap(JSONParser.parse(Array(json.utf8)).objectValue)))
    }

    private func resolve(_ writes: [ViewModelStore.Write]) throws -> [ViewModelStore.Write] {
        let store = try ViewModelStore(definitions: [], store: MemoryStore(), log: Log(level: .error))
        var latest: [WriteCondition.Key: IncomingRecord?] = [:]
        let committed = ["a": #"{"id":"a","n":0,"keep":true}"#, "b": #"{"id":"b"}"#]
        let result = try store.resolvePatches(writes, latest: &latest) { _, id in
            committed[id].map { StoredRecord(id: id, json: Array($0.utf8), version: 1) }
        }
        guard case .success(let resolved) = result else { XCTFail("refused"); return [] }
        return resolved
    }

    private func described(_ writes: [ViewModelStore.Write]) -> [String] {
        writes.map { write in
            switch write {
            case .upsert(_, let record): "\(record.id) \(String(decoding: record.json, as: UTF8.self))"
            case .delete(_, let id): "delete \(id)"
            case .patch: "patch"
            }
        }
    }

    func testPatchesOfOneRecordAreWrittenOnceWhereTheFirstWas() throws {
        let many = try (1...1_000).map { try patch("a", #"{"n":\#($0)}"#) }
        let writes = try [patch("a", #"{"x":1}"#), patch("b", #"{"y":2}"#)] + many + [patch("a", #"{"keep":null}"#)]
        let resolved = described(try resolve(writes))
        XCTAssertEqual(resolved.count, 2, "one write for each record, not one for each of its \(writes.count - 1) patches")
        XCTAssertEqual(Array(resolved.prefix(2)), [#"a {"id":"a","n":1000,"x":1}"#, #"b {"id":"b","y":2}"#])
        let first = try XCTUnwrap({ if case .patch(let p) = writes[0] { return p } else { return nil } }())
        guard case .merged(let record) = first.outcome else { return XCTFail("not merged") }
        XCTAssertEqual(record.id, "a", "each patch of the run reports the record after the last")
    }

    func testAnotherWriteOfTheRecordEndsARun() throws {
        let writes = try [patch("a", #"{"x":1}"#), upsert("a", #"{"id":"a","z":3}"#), patch("a", #"{"y":2}"#)]
        XCTAssertEqual(described(try resolve(writes)),
                       [#"a {"id":"a","n":0,"keep":true,"x":1}"#, #"a {"id":"a","z":3}"#, #"a {"id":"a","z":3,"y":2}"#])
    }
}
