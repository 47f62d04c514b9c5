import Dispatch
@testable import ListModel

// Small fixtures shared by the model's tests.

extension Row {
    /// A row for tests of the model's structures: id, sort key and tag length as given, and
    /// `{"id":…,"type":"row"` as its JSON (head and body both end there).
    static func forTest(id: String, sortKey: SortKey = .none, tags: Int = 1) -> Row {
        let json = Array(#"{"id":"\#(id)","type":"row""#.utf8)
        return json.withUnsafeBufferPointer {
            Row.make(id: id, type: "row", groupKey: "", sortKey: sortKey, tagLength: tags, json: $0, headEnd: $0.count, bodyEnd: $0.count)
        }
    }
}

extension Parallelism {
    /// Every core, as the service runs builds (`DispatchQueue.concurrentPerform`).
    static let threads = Parallelism { parts, body in DispatchQueue.concurrentPerform(iterations: parts, execute: body) }
}

extension RowSequence {
    /// Index of the row with this key and id (at or after `start`), found by key: how the
    /// tests check where a row is without holding it.
    func index(of key: SortKey, _ id: String, order: RowOrder, from start: Int = 0) -> Int? {
        let i = lowerBound(of: Row.position(key, id), order: order, strictly: false, from: start)
        guard i < count else { return nil }
        return withRowsView { $0.withRow(at: i) { $0.id == id && order.compare($0.sortKey, $0.id, key, id) == 0 } } ? i : nil
    }
}
