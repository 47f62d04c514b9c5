import JSONOutput

extension JSONWriter {
    /// Writes any JSON value (object members in their stored order).
    public mutating func value(_ v: JSONValue) {
        switch v {
        case .null: null()
        case .bool(let b): bool(b)
        case .int(let i): int64(i)
        case .double(let d): double(d)
        case .number(let n):
            rawValueBegin()
            var t = n.text
            t.withUTF8 { raw($0) }
        case .string(let s): string(s)
        case .array(let a):
            beginArray()
            for e in a { value(e) }
            endArray()
        case .object(let o):
            beginObject()
            for m in o.members { key(m.key); value(m.value) }
            endObject()
        }
    }
}
