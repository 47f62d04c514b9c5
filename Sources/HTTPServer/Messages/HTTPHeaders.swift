#if canImport(Glibc)
import Glibc
#endif

/// HTTP header fields in arrival order, looked up without regard to case (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Sequence, Equatable {
    private var fields: [(name: String, value: String)] = []

    public init() {}

    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of the named field, or nil.
    public subscript(name: String) -> String? {
        for field in fields where Self.name(field.name, is: name) { return field.value }
        return nil
    }

    /// Every value of the named field, in order, joined by `, `: one list for a list-valued field
    /// sent on several lines (RFC 9110 §5.3), such as `If-None-Match` or `Accept-Encoding`; nil
    /// when there is none. The first line alone when there is one (no copy).
    public func list(_ name: String) -> String? {
        var combined: String?
        for field in fields where Self.name(field.name, is: name) {
            combined = combined.map { $0 + ", " + field.value } ?? field.value
        }
        return combined
    }

    /// The value of a field that may be sent once (not a list, RFC 9110 §5.3), read in one pass:
    /// nil when absent, with `repeated` when it came on several lines.
    public func single(_ name: String) -> (value: String, repeated: Bool)? {
        var found: String?
        for field in fields where Self.name(field.name, is: name) {
            guard found == nil else { return (found!, true) }
            found = field.value
        }
        return found.map { ($0, false) }
    }

    /// Whether a field's name is `name` but for case: lengths first, most names differ in it.
    @inline(__always)
    private static func name(_ fieldName: String, is name: String) -> Bool {
        fieldName.utf8.count == name.utf8.count && fieldName.caseInsensitiveEquals(name)
    }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Sets a field, replacing every earlier field of the same name.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
        fields.append((name: name, value: value))
    }

    public var count: Int { fields.count }

    /// Makes room for `count` fields, so building an answer's few headers reallocates once.
    public mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }

    /// The same fields in the same order, names and values byte for byte (not `String`'s `==`,
    /// which also equates canonically equivalent spellings: a ``ResponseMemo`` must not send
    /// one spelling's bytes for the other).
    ///
    /// A memo compares a warm answer's fields with its own on every request, and they are
    /// nearly always the very same strings (literals, and values kept with the cached answer):
    /// those are found equal by their representation alone. Reading the bytes of all six fields
    /// of a first page was 1,900 of its 3,300 instructions in the memo (callgrind).
    public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
        guard a.fields.count == b.fields.count else { return false }
        // Each string is read where it is (binding a field to a local copied it: 24 retains and
        // releases for a first page's six fields, 770 of the memo's 1,300 instructions).
        for i in a.fields.indices where !same(a.fields[i].name, b.fields[i].name) || !same(a.fields[i].value, b.fields[i].value) {
            return false
        }
        return true
    }

    private static func same(_ a: String, _ b: String) -> Bool { identical(a, b) || sameBytes(a, b) }

    /// Whether both strings have the same representation: the same storage, or the same small
    /// string held inline. Then their bytes are the same; otherwise they may still be.
    private static func identical(_ a: String, _ b: String) -> Bool {
        guard MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size else { return false }
        return unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self)
    }

    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) }
        }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (header values, RFC 9110 §5.5).
    public var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

extension String {
    /// ASCII case-insensitive equality, enough for header names. Over both strings' contiguous
    /// UTF-8 when they have it (native strings and literals do): the generic walk through two
    /// `UTF8View` iterators was a few percent of a warm read, which looks up several headers.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }  // O(1) for native strings
        let fast = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                for i in 0..<a.count where a[i] != b[i] {
                    let x = a[i] | 0x20
                    if x != b[i] | 0x20 || x < 0x61 || x > 0x7A { return false }
                }
                return true
            }
        }
        if let fast = fast, let equal = fast { return equal }
        var a = utf8.makeIterator(), b = other.utf8.makeIterator()
        while true {
            switch (a.next(), b.next()) {
            case (nil, nil): return true
            case let (x?, y?):
                if x == y { continue }
                if (x | 0x20) != (y | 0x20) || !((x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A) { return false }
            default: return false
            }
        }
    }
}
