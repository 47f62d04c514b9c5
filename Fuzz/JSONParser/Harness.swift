@testable import ListModel

/// Fuzz target: the JSON parser over any bytes.
///
/// The parser must answer a value or a typed error for every input (a trap is a crash), and a
/// value it accepts must survive being written and read back: the value is unchanged and a
/// second write gives the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    guard let value = try? JSONParser.parse(input) else { return 0 }
    let written = write(value)
    guard let reread = try? JSONParser.parse(written) else {
        fatalError("the writer's output does not parse: \(String(decoding: written, as: UTF8.self))")
    }
    precondition(reread == value, "a written value reads back different: \(value) → \(reread)")
    precondition(write(reread) == written, "a second write gives other bytes")
    if let text = String(validating: input, as: UTF8.self) {
        precondition((try? JSONParser.parse(text)) == value, "parsing the text and the bytes differ")
    }
    return 0
}

private func write(_ value: JSONValue) -> [UInt8] {
    var writer = JSONWriter()
    writer.value(value)
    return writer.bytes
}
