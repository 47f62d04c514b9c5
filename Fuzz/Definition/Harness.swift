@testable import ListModel

/// Fuzz target: the list definition decoder, and the model built from what it accepts.
///
/// Input: a JSON list definition (as one member of a config's `lists`). Decoding must answer a
/// definition or `DefinitionErrors` (never trap). An accepted definition then builds a
/// snapshot over fixed records of every collection it reads; every page is cut and written
/// (following page tokens to the end), and the snapshot after a few record writes must equal,
/// answer for answer, a snapshot built from scratch over the written records.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDefinition(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let json = try? JSONParser.parse(UnsafeRawBufferPointer(start: data, count: size)) else { return 0 }
    guard let definition = try? ListDefinitions.decode(name: "fuzz", json) else { return 0 }
    var before: [String: [JSONValue]] = [:]
    var after: [String: [JSONValue]] = [:]
    for source in definition.sources {
        before[source] = records
        after[source] = recordsAfterWrites
    }
    var updated = ListSnapshot.build(definition: definition, records: before)
    _ = answers(updated)
    for source in definition.sources {
        for change in writes { updated.apply(change, collection: source) }
    }
    let rebuilt = ListSnapshot.build(definition: definition, records: after)
    let got = answers(updated), want = answers(rebuilt)
    precondition(got == want, "updating differs from rebuilding:\n\(String(decoding: got, as: UTF8.self))\n---\n\(String(decoding: want, as: UTF8.self))")
    return 0
}

/// The outline and every page (3 rows each) of the default view and of a view hiding every
/// section, as JSON.
private func answers(_ snapshot: ListSnapshot) -> [UInt8] {
    var w = JSONWriter()
    w.beginArray()
    let hideAll = ViewState(hidden: Set((0..<snapshot.sectionCount).compactMap { snapshot.section(at: $0)?.key }))
    for view in [snapshot.definition.defaultView, ViewState(), hideAll] {
        w.int(snapshot.rowCount(in: view))
        for i in 0..<snapshot.sectionCount { snapshot.writeSection(i, view: view, into: &w) }
        let binding = PageBinding(list: "fuzz", view: nil)
        var token: String? = nil
        for _ in 0..<64 {
            guard let page = try? snapshot.page(size: 3, token: token, view: view, binding: binding) else {
                fatalError("a page token this snapshot wrote was refused")
            }
            writePage(page, of: snapshot, into: &w)
            guard let next = page.nextPageToken else { break }
            token = next
        }
    }
    w.endArray()
    return w.bytes
}

/// A page's sections with their rows, its token and its counts (the service adds the envelope).
func writePage(_ page: Page, of snapshot: ListSnapshot, into w: inout JSONWriter) {
    for e in page.entries {
        snapshot.writeSectionWithRows(e.index, view: page.view, start: e.rowOffset, count: e.rowCount, rowOffset: true, into: &w)
    }
    if let token = page.nextPageToken { w.string(token) }
    w.int(page.itemsBefore)
    w.int(page.itemsAfter)
}

private func parse(_ text: String) -> JSONValue {
    guard let value = try? JSONParser.parse(text) else { fatalError("a fixed record does not parse: \(text)") }
    return value
}

/// Records with fields of every JSON type under the names definitions usually read.
private let records: [JSONValue] = [
    #"{"id":"1","name":"Ada","team":"Engineering","kind":"person","salary":120000.5,"startDate":"2021-03-04","unread":3,"active":true}"#,
    #"{"id":"2","name":"Grace","team":"Design","kind":"bot","salary":"n/a","startDate":1700000000,"unread":null,"active":false}"#,
    #"{"id":"3","name":"","team":"","kind":7,"salary":9223372036854775807,"unread":1e-7}"#,
    #"{"id":"4","name":["x"],"team":{"a":1},"kind":null,"salary":-0,"active":"yes"}"#,
    #"{"id":"5","name":"ada","team":"Engineering","salary":1.50,"startDate":"2024-02-29"}"#,
    #"{"id":"6","name":"Zoë 🙂","team":"Archived","kind":"person","salary":1e2}"#,
    #"{"id":"7","team":"Design"}"#,
].map(parse)

/// What `writes` does to `records`, as a list of records.
private let recordsAfterWrites: [JSONValue] = [
    #"{"id":"1","name":"Ada","team":"Design","kind":"bot","salary":1,"startDate":"2021-03-05","unread":4,"active":false}"#,
    #"{"id":"2","name":"Grace","team":"Design","kind":"bot","salary":"n/a","startDate":1700000000,"unread":null,"active":false}"#,
    #"{"id":"3","name":"","team":"","kind":7,"salary":9223372036854775807,"unread":1e-7}"#,
    #"{"id":"5","name":"ada","team":"Engineering","salary":1.50,"startDate":"2024-02-29"}"#,
    #"{"id":"6","name":"Zoë 🙂","team":"Archived","kind":"person","salary":1e2}"#,
    #"{"id":"7","team":"Design"}"#,
    #"{"id":"8","name":"New","team":"New team","kind":"person","salary":5}"#,
].map(parse)

private let writes: [RecordChange] = [
    .upsert(parse(#"{"id":"1","name":"Ada","team":"Design","kind":"bot","salary":1,"startDate":"2021-03-05","unread":4,"active":false}"#)),
    .delete(id: "4"),
    .upsert(parse(#"{"id":"8","name":"New","team":"New team","kind":"person","salary":5}"#)),
    .delete(id: "missing"),
]
