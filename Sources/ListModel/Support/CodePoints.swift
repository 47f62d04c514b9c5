/// Code-point (UTF-8 byte) order of strings, as the API contract (docs/api.md) requires for keys, ids and sort values.
///
/// Swift's `String` comparison uses Unicode canonical equivalence; the contract's ordering is by code
/// points, which for UTF-8 equals plain byte order.
///
/// Reads both strings in place (`withContiguousStorageIfAvailable` on borrowed values, which
/// native and small strings always allow) instead of copying them for `withUTF8`: a copy of a
/// heap string is a retain/release pair on storage that other threads may be reading too.
@inline(__always)
func compareCodePoints(_ a: String, _ b: String) -> Int {
    if let r = a.utf8.withContiguousStorageIfAvailable({ pa in
        b.utf8.withContiguousStorageIfAvailable { pb in compareBytes(pa, pb) }
    }), let r {
        return r
    }
    var a = a, b = b
    return a.withUTF8 { pa in b.withUTF8 { pb in compareBytes(pa, pb) } }
}

@inline(__always)
func compareBytes(_ pa: UnsafeBufferPointer<UInt8>, _ pb: UnsafeBufferPointer<UInt8>) -> Int {
    let n = min(pa.count, pb.count)
    if n > 0 {
        let c = memcmpBytes(pa.baseAddress!, pb.baseAddress!, n)
        if c != 0 { return c }
    }
    return pa.count == pb.count ? 0 : (pa.count < pb.count ? -1 : 1)
}

@inline(__always)
func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Int {
    var k = 0
    // Compare 8 bytes at a time, big-endian so the first differing byte decides.
    while k + 8 <= n {
        let x = UnsafeRawPointer(a + k).loadUnaligned(as: UInt64.self)
        let y = UnsafeRawPointer(b + k).loadUnaligned(as: UInt64.self)
        if x != y { return x.bigEndian < y.bigEndian ? -1 : 1 }
        k += 8
    }
    while k < n {
        if a[k] != b[k] { return a[k] < b[k] ? -1 : 1 }
        k += 1
    }
    return 0
}

/// `a < b` by code points.
@inline(__always)
func codePointLess(_ a: String, _ b: String) -> Bool { compareCodePoints(a, b) < 0 }

/// `a == b` by code points (no canonical equivalence).
@inline(__always)
func codePointEqual(_ a: String, _ b: String) -> Bool { a.utf8.count == b.utf8.count && compareCodePoints(a, b) == 0 }

/// A string that hashes and compares by its UTF-8 bytes, for sets and dictionaries that must
/// not merge canonically equivalent but different strings (Swift's `String` would: "José" with
/// a precomposed é and with e and a combining accent are equal to it, as are "K" and the Kelvin
/// sign "\u{212A}", while the stores, JSON and users' identities tell them apart).
public struct CodePointKey: Hashable, Sendable {
    /// The string.
    public let string: String
    /// The key of `s`.
    public init(_ s: String) { string = s }
    /// Equal UTF-8 bytes.
    public static func == (a: CodePointKey, b: CodePointKey) -> Bool { codePointEqual(a.string, b.string) }
    /// Hashes the UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
