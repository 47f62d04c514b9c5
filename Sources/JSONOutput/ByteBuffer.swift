/// Growable bytes owned by one writer: where rows are encoded and templates render.
///
/// An `Array<UInt8>` checks on every append that it is unique and has room, through generic
/// code that is not always inlined: making the rows of 100,000 people spent a quarter of its
/// instructions in `Array.append` and its helpers (callgrind, `sectional-bench model`), about
/// 100 instructions to append a 20-byte string. This buffer cannot be copied (`~Copyable`), so
/// it is unique by construction; an append is a capacity check and a `memcpy`.
///
/// The memory is the buffer's: ``withBytes(_:)`` lends it only for the closure's duration.
@usableFromInline package struct ByteBuffer: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// Bytes written so far.
    @usableFromInline package internal(set) var count = 0

    /// An empty buffer with room for `capacity` bytes before it grows.
    @inlinable package init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// `true` when nothing is written.
    @inlinable package var isEmpty: Bool { count == 0 }

    /// Forgets the bytes written, keeping the memory.
    @inlinable @inline(__always)
    package mutating func removeAll() { count = 0 }

    /// Makes room for `extra` more bytes.
    @inlinable @inline(__always)
    package mutating func reserve(_ extra: Int) {
        if capacity &- count < extra { grow(to: count + extra) }
    }

    @usableFromInline mutating func grow(to needed: Int) {
        var size = capacity * 2
        while size < needed { size *= 2 }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        larger.initialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity = size
    }

    /// Appends one byte.
    @inlinable @inline(__always)
    package mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    /// Appends `bytes`.
    @inlinable @inline(__always)
    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let from = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).update(from: from, count: bytes.count)
        count &+= bytes.count
    }

    /// Appends a literal's bytes.
    @inlinable @inline(__always)
    package mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends the bytes of an array.
    @inlinable @inline(__always)
    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Appends the UTF-8 of `text`, read in place (a native string is not copied).
    @inlinable @inline(__always)
    package mutating func append(utf8 text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil {
            var copy = text
            copy.withUTF8 { append($0) }
        }
    }

    /// Writes at most `extra` bytes with a cursor at the end of the written bytes (see
    /// ``JSONCursor``): the room is made first, so the cursor checks nothing.
    @inlinable @inline(__always)
    package mutating func write(reserving extra: Int, _ body: (inout JSONCursor) -> Void) {
        reserve(extra)
        var cursor = JSONCursor(base + count)
        body(&cursor)
        count &+= cursor.count
    }

    /// Calls `body` with the bytes written so far, valid only inside it.
    @inlinable @inline(__always)
    package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// A copy of the bytes written so far.
    package var array: [UInt8] { withBytes { Array($0) } }

    /// The bytes written so far as text (invalid UTF-8 repaired).
    package var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }
}
