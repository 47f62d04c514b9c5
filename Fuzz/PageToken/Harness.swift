@testable import ListModel

/// Fuzz target: page tokens, decoded and used to cut a page of a fixed list.
///
/// Input: a mode byte, a page-size byte, then either (mode even) the token text as a client
/// would send it, or (mode odd) the token's inner bytes, which the harness frames the way the
/// server does (version byte, the binding's hash, checksum, base64url) so that the fuzzer reaches
/// the field decoding behind the checksum: as version 3 when the mode's bit 2 is set (the inner
/// bytes then end with the guess, a varint), else as version 2. A token must be refused with `PageTokenError` or
/// give a page; a page holds at most the page size, and the rows before, on and after it add
/// up to the view's visible rows. The same bytes are also read as a `pageSize` value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPageToken(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let body = Array(bytes[2...])
    let token: String
    if bytes[0] & 1 == 0 {
        guard let text = String(validating: body, as: UTF8.self) else { return 0 }
        token = text
        _ = try? PageSize.parse(text)
    } else {
        token = framed(body, version: bytes[0] & 4 == 0 ? 2 : 3)
    }
    let pageSize = PageSize.resolve(Int(bytes[1] % 8))
    for (view, visible) in views {
        guard let page = try? snapshot.page(size: pageSize, token: token, view: view, binding: binding) else { continue }
        precondition(page.rowCount <= pageSize, "a page of \(page.rowCount) rows for a page size of \(pageSize)")
        precondition(page.itemsBefore + page.rowCount + page.itemsAfter == visible,
                     "rows before (\(page.itemsBefore)), on (\(page.rowCount)) and after (\(page.itemsAfter)) do not add up to \(visible)")
        var w = JSONWriter()
        w.beginArray()
        for e in page.entries {
            snapshot.writeSectionWithRows(e.index, view: page.view, start: e.rowOffset, count: e.rowCount, rowOffset: true, into: &w)
        }
        w.endArray()
    }
    return 0
}

/// `inner` framed as a token of `binding`: `version`, the binding hash, `inner`, the checksum.
private func framed(_ inner: [UInt8], version: UInt8) -> String {
    var b: [UInt8] = [version]
    for k in 0..<8 { b.append(UInt8(truncatingIfNeeded: binding.hash >> (8 * UInt64(k)))) }
    b += inner
    var h = FNV1a()
    h.combine(b)
    let checksum = UInt32(truncatingIfNeeded: h.value ^ (h.value >> 32))
    for k in 0..<4 { b.append(UInt8(truncatingIfNeeded: checksum >> (8 * UInt32(k)))) }
    return Base64URL.encode(b)
}

private let binding = PageBinding(list: "people", view: nil)

private let definitionJSON = #"""
{
  "sections": [
    { "key": "pinned", "type": "pinned", "title": "Pinned",
      "rows": [ { "id": "p1", "type": "link", "title": "One" }, { "id": "p2", "type": "link", "title": "Two" } ] },
    { "source": "people", "groupBy": "team", "type": "team", "title": "{$key} ({$count})",
      "sectionOrder": ["Engineering", "Design"], "hiddenByDefault": ["Archived"],
      "sortBy": [ { "field": "active", "order": "desc" }, { "field": "salary", "order": "desc" }, { "field": "name", "order": "asc" } ],
      "row": { "type": "person", "title": "{name}", "tagLength": 2 } },
    { "source": "people", "key": "everyone", "type": "all", "title": "Everyone",
      "sortBy": [ { "field": "name", "order": "desc" } ],
      "row": { "type": "person", "title": "{name}" } }
  ]
}
"""#

private let snapshot: ListSnapshot = {
    guard let json = try? JSONParser.parse(definitionJSON) else { fatalError("the fixed definition does not parse") }
    let definition: ListDefinition
    do { definition = try ListDefinitions.decode(name: "people", json) } catch { fatalError("the fixed definition is refused: \(error)") }
    let teams = ["Engineering", "Design", "Archived", "Sales", "", "Zoë 🙂", String(repeating: "long team ", count: 40)]
    var people: [JSONValue] = []
    for i in 0..<60 {
        var members: [JSONObject.Member] = [("id", .string("person-\(i)")), ("team", .string(teams[i % teams.count]))]
        if i % 5 != 0 { members.append(("name", .string(i % 3 == 0 ? "Name \(i % 7)" : String(repeating: "n", count: i * 7)))) }
        if i % 4 != 0 { members.append(("salary", i % 3 == 0 ? .double(Double(i) / 3) : .int(Int64(i * 1000) - 20000))) }
        if i % 6 == 1 { members.append(("salary", .string("n/a"))) }
        if i % 2 == 0 { members.append(("active", .bool(i % 4 == 0))) }
        people.append(.object(JSONObject(members)))
    }
    return ListSnapshot.build(definition: definition, records: ["people": people])
}()

/// The default view, a view showing every section, and one hiding the pinned section, with
/// their visible row counts.
private let views: [(ViewState, Int)] = [
    snapshot.definition.defaultView, ViewState(), ViewState(hidden: ["pinned", "Design"]),
].map { ($0, snapshot.rowCount(in: $0)) }
