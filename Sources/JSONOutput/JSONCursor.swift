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
@usableFromInline package struct JSONCursor {
    @usableFromInline let start: UnsafeMutablePointer<UInt8>
    /// Bytes written so far.
    @usableFromInline package internal(set) var count = 0

    /// A cursor at the start of `memory`.
    @inlinable package init(_ memory: UnsafeMutablePointer<UInt8>) { start = memory }

    /// The most bytes a string of `count` UTF-8 bytes takes escaped and quoted.
    @inlinable package static func escapedCapacity(_ count: Int) -> Int { 2 + 6 * count }

    /// The bytes written so far.
    @inlinable package var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

    /// Where the next byte goes.
    @inlinable package var end: UnsafeMutablePointer<UInt8> { start + count }

    /// Counts `n` bytes written at ``end`` by someone else as written.
    @inlinable @inline(__always)
    package mutating func advance(by n: Int) { count += n }

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
        guard let base = text.baseAddress else { put(0x22); return }
        // Runs of plain bytes are copied whole, the first found 8 bytes at a time.
        var runStart = 0
        var k = JSONWriter.plainPrefix(text)
        let n = text.count
        while k < n {
            let b = base[k]
            if !JSONWriter.needsEscape(b) { k += 1; continue }
            (start + count).update(from: base + runStart, count: k - runStart)
            count += k - runStart
            JSONWriter.forEachEscapeByte(of: b) { put($0) }
            k += 1
            runStart = k
        }
        (start + count).update(from: base + runStart, count: n - runStart)
        count += n - runStart
        put(0x22)
    }
}
