/// A fast JSON byte writer that appends compact UTF-8 JSON into ``bytes``.
///
/// It places commas itself: call ``beginObject()``/``key(_:)-swift.method``/values/``endObject()``
/// in document order. Strings are escaped per RFC 8259 (`"`, `\`, and control characters; other
/// characters pass through as UTF-8). Numbers never depend on a locale.
///
/// ``rawValue(_:)`` inserts a pre-encoded value (e.g. a cached row object) with comma handling.
///
/// The one JSON writer of the project: answers, problems, events, logs and stored records are
/// all written with it. It lives in its own small module, not in ListModel, because the HTTP
/// server writes JSON too (its problem answers) and must not depend on the view-model core;
/// ListModel re-exports this module, since its output functions take a writer. Every member is
/// `@inlinable`, so writing from another module (the core's row encoder, the service's answers)
/// costs what it did inside one.
public struct JSONWriter: Sendable {
    /// The JSON text written so far.
    public var bytes: [UInt8]
    /// Per open container: whether it already holds an element (bit `depth-1`), for depth ≤ 64;
    /// deeper levels use `deepStack`.
    @usableFromInline var hasElements: UInt64 = 0
    @usableFromInline var deepStack: [Bool] = []
    @usableFromInline var depth = 0
    @usableFromInline var afterKey = false

    /// A writer with an empty buffer of the given capacity.
    @inlinable public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// A writer that appends to existing bytes (treated as a complete top-level context).
    @inlinable public init(appendingTo bytes: [UInt8]) { self.bytes = bytes }

    @inlinable @inline(__always)
    mutating func prepareValue() {
        if afterKey { afterKey = false; return }
        if depth == 0 { return }
        if depth <= 64 {
            let bit: UInt64 = 1 << UInt64(depth - 1)
            if hasElements & bit != 0 { bytes.append(0x2C) } else { hasElements |= bit }
        } else {
            if deepStack[depth - 65] { bytes.append(0x2C) } else { deepStack[depth - 65] = true }
        }
    }

    @inlinable @inline(__always)
    mutating func push() {
        depth += 1
        if depth <= 64 { hasElements &= ~(1 << UInt64(depth - 1)) } else { deepStack.append(false) }
    }

    @inlinable @inline(__always)
    mutating func pop() {
        if depth > 64 { deepStack.removeLast() }
        depth -= 1
    }

    /// Writes `{`.
    @inlinable @inline(__always) public mutating func beginObject() { prepareValue(); bytes.append(0x7B); push() }
    /// Writes `}`.
    @inlinable @inline(__always) public mutating func endObject() { pop(); bytes.append(0x7D) }
    /// Writes `[`.
    @inlinable @inline(__always) public mutating func beginArray() { prepareValue(); bytes.append(0x5B); push() }
    /// Writes `]`.
    @inlinable @inline(__always) public mutating func endArray() { pop(); bytes.append(0x5D) }

    /// Writes a member name known to need no escaping (ASCII letters, digits), then `:`.
    @inlinable @inline(__always)
    public mutating func key(_ name: StaticString) {
        prepareValue()
        bytes.append(0x22)
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(0x22)
        bytes.append(0x3A)
        afterKey = true
    }

    /// Writes an arbitrary member name (escaped), then `:`. (Disfavoured, so a literal
    /// `key("x")` takes the `StaticString` overload and skips escaping.)
    @inlinable @_disfavoredOverload
    public mutating func key(_ name: String) {
        prepareValue()
        appendEscaped(name)
        bytes.append(0x3A)
        afterKey = true
    }

    /// Writes a string value.
    @inlinable @inline(__always) public mutating func string(_ s: String) { prepareValue(); appendEscaped(s) }

    /// Writes a string value from UTF-8 bytes (assumed valid UTF-8).
    @inlinable public mutating func string(utf8 s: UnsafeBufferPointer<UInt8>) { prepareValue(); appendEscaped(s) }

    /// Writes an integer.
    @inlinable @inline(__always) public mutating func int(_ v: Int) { prepareValue(); JSONNumberText.appendInt(Int64(v), to: &bytes) }
    /// Writes an integer.
    @inlinable @inline(__always) public mutating func int64(_ v: Int64) { prepareValue(); JSONNumberText.appendInt(v, to: &bytes) }
    /// Writes a number in its shortest form (`56`, `0.1`, `1e-7`); non-finite values as `null`.
    @inlinable public mutating func double(_ v: Double) { prepareValue(); JSONNumberText.appendDouble(v, to: &bytes) }
    /// Writes `true` or `false`.
    @inlinable @inline(__always) public mutating func bool(_ v: Bool) {
        prepareValue()
        if v { bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65]) } else { bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65]) }
    }
    /// Writes `null`.
    @inlinable @inline(__always) public mutating func null() { prepareValue(); bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }

    /// Writes a complete pre-encoded JSON value (not checked).
    @inlinable @inline(__always) public mutating func rawValue(_ json: [UInt8]) { prepareValue(); bytes.append(contentsOf: json) }

    /// Appends bytes with no comma handling (for callers that write a value in several pieces
    /// after one ``rawValueBegin()``).
    @inlinable @inline(__always) package mutating func raw(_ json: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: json) }

    /// Announces a value that will be written with ``raw(_:)`` pieces.
    @inlinable @inline(__always) package mutating func rawValueBegin() { prepareValue() }

    /// Appends `"…"` with RFC 8259 escaping.
    @inlinable @inline(__always)
    package mutating func appendEscaped(_ s: String) {
        var s = s
        s.withUTF8 { appendEscaped($0) }
    }

    @inlinable
    package mutating func appendEscaped(_ u: UnsafeBufferPointer<UInt8>) {
        JSONWriter.appendEscaped(u, to: &bytes)
    }

    /// Appends `"…"` with RFC 8259 escaping to a byte array.
    @inlinable
    package static func appendEscaped(_ u: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(0x22)
        var runStart = 0
        var k = plainPrefix(u)
        let n = u.count
        while k < n {
            let b = u[k]
            if !needsEscape(b) { k += 1; continue }
            if k > runStart { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[runStart..<k])) }
            forEachEscapeByte(of: b) { bytes.append($0) }
            k += 1
            runStart = k
        }
        if n > runStart { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[runStart..<n])) }
        bytes.append(0x22)
    }

    /// Hands `put` the escape sequence of a byte that needs one (a quote, a backslash or a
    /// byte below 0x20): `\"`, `\\`, the short forms `\n` `\r` `\t` `\b` `\f`, else `\u00XX`.
    @inlinable @inline(__always)
    package static func forEachEscapeByte(of b: UInt8, _ put: (UInt8) -> Void) {
        put(0x5C)
        switch b {
        case 0x22, 0x5C: put(b)
        case 0x0A: put(UInt8(ascii: "n"))
        case 0x0D: put(UInt8(ascii: "r"))
        case 0x09: put(UInt8(ascii: "t"))
        case 0x08: put(UInt8(ascii: "b"))
        case 0x0C: put(UInt8(ascii: "f"))
        default:
            let hex = { (digit: UInt8) -> UInt8 in digit < 10 ? 0x30 + digit : UInt8(ascii: "a") + digit - 10 }
            put(UInt8(ascii: "u")); put(0x30); put(0x30); put(hex(b >> 4)); put(hex(b & 15))
        }
    }

    /// How many leading bytes of `u` need no escaping, found 8 at a time: a multiple of 8, so
    /// the caller checks the bytes from there one by one.
    @inlinable @inline(__always)
    package static func plainPrefix(_ u: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = u.baseAddress else { return 0 }
        var k = 0
        while k + 8 <= u.count, !needsEscape(UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self)) { k += 8 }
        return k
    }

    /// Whether a byte needs escaping in a JSON string: below 0x20, a quote or a backslash.
    @inlinable @inline(__always)
    package static func needsEscape(_ b: UInt8) -> Bool { b < 0x20 || b == 0x22 || b == 0x5C }

    /// `true` when one of the 8 bytes is below 0x20, a quote or a backslash (exact for "any";
    /// the byte loop then finds which).
    @inlinable @inline(__always)
    package static func needsEscape(_ x: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let below20 = (x &- ones &* 0x20) & ~x & high
        let q = x ^ (ones &* 0x22)
        let quote = (q &- ones) & ~q & high
        let bs = x ^ (ones &* 0x5C)
        let backslash = (bs &- ones) & ~bs & high
        return below20 | quote | backslash != 0
    }

    /// Appends `"…"` for a `String` to a byte array.
    @inlinable
    package static func appendEscaped(_ s: String, to bytes: inout [UInt8]) {
        var s = s
        s.withUTF8 { appendEscaped($0, to: &bytes) }
    }

    /// Appends `u` as a JSON string literal (quotes included) to a ``ByteBuffer``: the room
    /// for the longest escaping is made first, then ``JSONCursor`` writes without checks.
    @inlinable @inline(__always)
    package static func appendEscaped(_ u: UnsafeBufferPointer<UInt8>, to bytes: inout ByteBuffer) {
        bytes.write(reserving: JSONCursor.escapedCapacity(u.count)) { $0.putEscaped(u) }
    }

    /// `s` as a JSON string literal (quotes included), appended to a ``ByteBuffer``.
    @inlinable @inline(__always)
    package static func appendEscaped(_ s: String, to bytes: inout ByteBuffer) {
        if s.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &bytes) }) == nil {
            var copy = s
            copy.withUTF8 { appendEscaped($0, to: &bytes) }
        }
    }

    /// `text` as a JSON string literal (quotes included), for a value spliced into JSON text
    /// or quoted in a message.
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        appendEscaped(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
