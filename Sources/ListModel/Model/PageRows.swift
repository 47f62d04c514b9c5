/// The rows that one page of a collection's records makes in a list: per data section that
/// reads the collection, the rows of the records it shows (objects with a string `"id"` that
/// match its `where`), in record order. Made ahead of the build
/// (``ListSnapshot/build(definition:pages:parallelism:)``), on any thread, so that a caller
/// reading records page by page can drop each page's records as soon as its rows exist.
public struct PageRows: Sendable {
    /// Per data section spec (its index) that reads the collection: its rows of this page.
    let rows: [(spec: Int, rows: ContiguousArray<Row>)]

    /// The rows `records` (of `collection`) make in `definition`. Costs a row made (templates
    /// rendered, JSON encoded) per record and section that shows it.
    ///
    /// `records` is a concrete slice, not `some Collection`: called from another module, a
    /// generic initializer ran unspecialized, and stepping through the records by the
    /// collection's witness table cost 400 instructions a record (callgrind, 100,000-record start).
    public init(definition: ListDefinition, collection: String, records: ArraySlice<JSONValue>) {
        var factory = RowFactory()
        rows = (definition.specsBySource[collection] ?? []).compactMap { spec -> (Int, ContiguousArray<Row>)? in
            guard let binding = definition.bindings[spec] else { return nil }
            var made = ContiguousArray<Row>()
            made.reserveCapacity(records.count)
            for value in records {
                guard case .object(let object) = value, case .string(let id)? = object["id"], binding.matches(object) else { continue }
                made.append(factory.dataRow(binding: binding, record: object, id: id))
            }
            return (spec, made)
        }
    }
}
