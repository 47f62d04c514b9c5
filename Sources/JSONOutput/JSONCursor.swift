/// Writes JSON text at a pointer, with no bounds checks and no comma bookkeeping, for a caller
/// that knows the shape of what it writes and sizes the memory for the worst case first
/// (``escapedCapacity(_:)`` for each string).
///
/// ``JSONWriter`` appends to an array, so each of its appends checks that the array is unique
/// and has room. A request log line (one per request, about 40 appends) spent more on those
/// checks than on its bytes; written with a cursor into memory on the stack it costs two fifths
/// of the instructions (callgrind, 2,000 `/healthz` requests: 7,000 → 2,700 per line, with the
/// timestamp and the copy into the log's buffer).
///
/// The cursor lends nothing: its pointer is the caller's, valid only inside the closure that
/// lent it (`withUnsafeTemporaryAllocation`), and the cursor must not outlive that closure.
package struct JSONCursor {
    @usableFromInline let start: UnsafeMutablePointer<UInt8>
    /// Bytes written so far.
    package private(set) var count = 0

    /// A cursor at the start of `memory`.
    @inlinable package init(_ memory: UnsafeMutablePointer<UInt8>) { start = memory }

    /// The most bytes a string of `count` UTF-8 bytes takes escaped and quoted.
    @inlinable package static func escapedCapacity(_ count: Int) -> Int { 2 + 6 * count }

    /// The bytes written so far.
    @inlinable package var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

    /// Writes one byte.
    @inlinable @inline(__always)
    package mutating func put(_ byte: UInt8) {
        start[count] = byte
        count += 1
    }

    /// Writes JSON text given as a literal, as it is.
    @inlinable @inline(__always)
    package mutating func put(_ text: StaticString) {
        count += JSONNumberText.write(text, to: start + count)
    }

    /// Writes the decimal digits of `value` (≥ 0), zero-padded on the left to `width`.
    @inlinable @inline(__always)
    package mutating func putDigits(_ value: Int, width: Int) {
        var rest = value
        var i = count + width
        while i > count {
            i -= 1
            start[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        count += width
    }

    /// Writes an integer as JSON.
    @inlinable @inline(__always)
    package mutating func putInt(_ value: Int) {
        if value < 0 { put(UInt8(ascii: "-")) }
        count += JSONNumberText.write(value.magnitude, to: start + count)
    }

    /// Writes `"…"` with the escaping of ``JSONWriter``; takes at most ``escapedCapacity(_:)``.
    @inlinable
    package mutating func putEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        put(0x22)
        var k = JSONWriter.plainPrefix(text)
        if let base = text.baseAddress {
            (start + count).update(from: base, count: k)
            count += k
        }
        while k < text.count {
            let b = text[k]
            if JSONWriter.needsEscape(b) { JSONWriter.forEachEscapeByte(of: b) { put($0) } } else { put(b) }
            k += 1
        }
        put(0x22)
    }
}
