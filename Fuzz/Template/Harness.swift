@testable import ListModel

/// Fuzz target: templates, parsed and rendered.
///
/// Input: one byte picking the scope (even: row, odd: section), then the template text, then
/// optionally a NUL byte and a JSON record to render it with (a fixed record otherwise). Parsing
/// must answer a template or a `TemplateError`; rendering must never trap, whatever the
/// record's field types (formatters such as `currency:` and `date:` meet strings, numbers,
/// booleans, nulls, arrays and objects).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemplate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let scope: Template.Scope = bytes[0] & 1 == 0 ? .row : .section
    let rest = bytes[1...]
    let split = rest.firstIndex(of: 0) ?? rest.endIndex
    guard let text = String(validating: rest[..<split], as: UTF8.self) else { return 0 }
    guard let template = try? Template(parsing: text, scope: scope) else { return 0 }
    var records = fixedRecords
    if split < rest.endIndex, let value = try? JSONParser.parse(Array(rest[(split + 1)...])), let record = value.objectValue {
        records.append(record)
    }
    for record in records {
        _ = template.render(record: record)
    }
    if scope == .section {
        for (key, count) in [("", 0), ("Engineering", 12), ("ü🙂\u{0}", Int(Int32.max))] {
            _ = template.renderString(key: key, count: count)
        }
    }
    return 0
}

private let fixedRecords: [JSONObject] = [
    #"{"id":"1","name":"Ada","salary":123456.785,"startDate":"2021-03-04","unread":3,"team":{"name":"Eng"},"tags":["a","b"],"avatar":null,"ok":true}"#,
    #"{"id":"2","name":42,"salary":"n/a","startDate":1700000000,"unread":-1.5e300,"team":[],"ok":"yes"}"#,
    #"{"id":"3","salary":9223372036854775807,"startDate":"2024-02-30T25:61:00Z","unread":1e-7}"#,
    #"{}"#,
].map { text in
    guard case .object(let object)? = try? JSONParser.parse(text) else { fatalError("a fixed record does not parse: \(text)") }
    return object
}
