/// One-dimensional arrays in PostgreSQL's binary format (`array_send`), for sending many values
/// as one parameter: a header (dimensions, null flag, element type), the dimension, then each
/// element as its length and bytes, all integers big-endian.
/// Format: https://github.com/postgres/postgres/blob/master/src/backend/utils/adt/arrayfuncs.c (array_recv)
enum PostgresArray {
    /// Element type OIDs (`pg_type`), fixed since PostgreSQL's first releases.
    enum Element: UInt32 {
        case int8 = 20
        case text = 25
        case json = 114
    }

    /// A `text[]` parameter.
    static func text(_ values: [String]) -> PostgresValue { encode(.text, values.map { Array($0.utf8) }) }

    /// A `json[]` parameter: each element the JSON text itself.
    static func json(_ values: [[UInt8]]) -> PostgresValue { encode(.json, values) }

    /// A `bigint[]` parameter.
    static func int8(_ values: [Int64]) -> PostgresValue { encode(.int8, values.map(bigEndian)) }

    private static func encode(_ element: Element, _ values: [[UInt8]]) -> PostgresValue {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + values.reduce(0) { $0 + 4 + $1.count })
        append(Int32(values.isEmpty ? 0 : 1), to: &bytes)  // dimensions
        append(Int32(0), to: &bytes)  // no NULL elements
        append(Int32(bitPattern: element.rawValue), to: &bytes)
        if !values.isEmpty {
            append(Int32(values.count), to: &bytes)
            append(Int32(1), to: &bytes)  // lower bound
        }
        for value in values {
            append(Int32(value.count), to: &bytes)
            bytes.append(contentsOf: value)
        }
        return .bytes(bytes)
    }

    private static func bigEndian(_ value: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    private static func append(_ value: Int32, to bytes: inout [UInt8]) {
        let bits = UInt32(bitPattern: value)
        bytes.append(contentsOf: [UInt8(bits >> 24), UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 8), UInt8(truncatingIfNeeded: bits)])
    }
}
