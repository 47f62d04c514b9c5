import Dispatch
import ListStore
import Synchronization
import TestSupport
import XCTest
@testable import ListModel
@testable import SectionalService

/// The writer thread takes turns: work queued for it behind a drain of the write queue (a list's
/// definition changed at run time) is done while writes keep coming, not once they stop.
final class WriterTurnTests: XCTestCase {
    private static func definitions(title: String) throws -> [ListDefinition] {
        try ListDefinitions.decode(JSONParser.parse(#"""
        {"people":{"sections":[{"key":"all","source":"people","type":"all","title":"\#(title)",
                                "row":{"type":"person","title":"{name}"}}]}}
        """#))
    }

    /// Writes one record again and again, each write queued as soon as the last is answered
    /// (on the writer thread), so the writer finds writes queued after every commit.
    private final class Writer: Sendable {
        let store: ViewModelStore
        let id: String
        let stop = Atomic<Bool>(false)
        let answered = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)

        init(store: ViewModelStore, id: String) {
            self.store = store
            self.id = id
        }

        func write() {
            guard !stop.load(ordering: .relaxed) else {
                done.signal()
                return
            }
            let record = IncomingRecord(id: id, object: JSONObject([("name", .string(id))]))
            store.commitLater([.upsert(collection: "people", record: record)]) { [self] _ in
                answered.add(1, ordering: .relaxed)
                write()
            }
        }
    }

    func testADefinitionChangeIsServedWhileWritesKeepComing() throws {
        let store = try ViewModelStore(definitions: try Self.definitions(title: "All"), store: MemoryStore(), log: Log(level: .error))
        let writers = (0..<8).map { Writer(store: store, id: "p\($0)") }
        writers.forEach { $0.write() }
        XCTAssertTrue(eventually(within: 30) { writers.allSatisfy { $0.answered.load(ordering: .relaxed) >= 20 } }, "writes are flowing")

        let changed = DispatchSemaphore(value: 0)
        let newTitle = try XCTUnwrap(Self.definitions(title: "Everyone").first)
        store.changeDefinitionLater("people", to: newTitle) { _ in changed.signal() }
        let served = changed.wait(timeout: .now() + 30)
        let writesThen = writers.map { $0.answered.load(ordering: .relaxed) }
        let writesGoOn = eventually(within: 30) {
            zip(writers, writesThen).allSatisfy { $0.answered.load(ordering: .relaxed) > $1 }
        }

        for writer in writers { writer.stop.store(true, ordering: .relaxed) }
        for writer in writers { XCTAssertEqual(writer.done.wait(timeout: .now() + 30), .success, "the writer stopped") }
        XCTAssertEqual(served, .success, "the definition change waited behind the writes")
        XCTAssertTrue(writesGoOn, "every writer is answered again after the change")
    }
}
