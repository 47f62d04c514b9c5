/// What a page token is bound to: a list and a view (`nil` for the default view).
public struct PageBinding: Sendable, Hashable {
    public let list: String
    public let view: String?
    public init(list: String, view: String?) { self.list = list; self.view = view }

    var hash: UInt64 {
        var h = FNV1a()
        h.combine(list)
        if let view { h.combine(CollectionOfOne(1)); h.combine(view) } else { h.combine(CollectionOfOne(0)) }
        return h.value
    }
}

/// A token was refused (`400 invalid-page-token`).
public enum PageTokenError: Error, Equatable, Sendable {
    /// Not a token this library wrote (bad base64url, bad checksum, bad layout).
    case malformed
    /// A valid token for another list or view.
    case wrongBinding
}

/// A page token: the position of the last row delivered (spec, section key, sort key, row id),
/// so the next page starts at the first visible row ordered after it, whatever was inserted or
/// deleted meanwhile (SPEC §4.1).
///
/// Encoding (then base64url, unpadded): version byte `1`, 8-byte binding hash, spec index,
/// raw section key, sort values (typed), row id, 4-byte checksum.
public struct PageToken: Sendable, Equatable {
    let spec: Int
    let rawKey: String
    let sortKey: SortKey
    let rowID: String

    init(spec: Int, rawKey: String, sortKey: SortKey, rowID: String) {
        self.spec = spec
        self.rawKey = rawKey
        self.sortKey = sortKey
        self.rowID = rowID
    }

    /// The opaque URL-safe text.
    public func encode(binding: PageBinding) -> String {
        PageToken.encode(spec: spec, rawKey: rawKey, sortKey: sortKey, rowID: rowID, binding: binding)
    }

    /// Encodes a position without building a token (the values are only read, so a caller can
    /// pass a shared row's fields without copying them).
    static func encode(spec: Int, rawKey: String, sortKey: SortKey, rowID: String, binding: PageBinding) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { stack in
            var b = TokenBytes(stack: stack)
            b.append(1)
            putU64(binding.hash, &b)
            putVarint(UInt64(spec), &b)
            putString(rawKey, &b)
            func put(_ v: SortValue) {
                switch v {
                case .missing: b.append(0)
                case .bool(let x): b.append(x ? 2 : 1)
                case .int(let i): b.append(3); putU64(UInt64(bitPattern: i), &b)
                case .double(let d): b.append(4); putU64(d.bitPattern, &b)
                case .string(let s): b.append(5); putString(s, &b)
                }
            }
            switch sortKey {
            case .none: putVarint(0, &b)
            case .one(let v): putVarint(1, &b); put(v)
            case .many(let vs): putVarint(UInt64(vs.count), &b); for v in vs { put(v) }
            }
            putString(rowID, &b)
            let h = b.withBytes { bytes -> UInt64 in
                var h = FNV1a()
                h.combine(bytes)
                return h.value
            }
            let c = UInt32(truncatingIfNeeded: h ^ (h >> 32))
            for k in 0..<4 { b.append(UInt8(truncatingIfNeeded: c >> (8 * UInt32(k)))) }
            return b.withBytes { Base64URL.encode($0) }
        }
    }

    /// Decodes a token and checks its binding.
    public static func decode(_ text: String, binding: PageBinding) throws(PageTokenError) -> PageToken {
        guard text.utf8.count <= 4096, let b = Base64URL.decode(text), b.count >= 14, b[0] == 1 else { throw .malformed }
        var h = FNV1a()
        h.combine(b[0..<(b.count - 4)])
        let c = UInt32(truncatingIfNeeded: h.value ^ (h.value >> 32))
        var stored: UInt32 = 0
        for k in 0..<4 { stored |= UInt32(b[b.count - 4 + k]) << (8 * UInt32(k)) }
        guard c == stored else { throw .malformed }
        var r = Reader(bytes: b, i: 1, end: b.count - 4)
        guard let bind = r.u64() else { throw .malformed }
        guard bind == binding.hash else { throw .wrongBinding }
        guard let spec = r.varint(), spec < 1 << 20, let key = r.string(), let n = r.varint(), n <= 64 else { throw .malformed }
        var values: [SortValue] = []
        for _ in 0..<n {
            guard let t = r.byte() else { throw .malformed }
            switch t {
            case 0: values.append(.missing)
            case 1: values.append(.bool(false))
            case 2: values.append(.bool(true))
            case 3: guard let x = r.u64() else { throw .malformed }; values.append(.int(Int64(bitPattern: x)))
            case 4: guard let x = r.u64() else { throw .malformed }; values.append(.double(Double(bitPattern: x)))
            case 5: guard let s = r.string() else { throw .malformed }; values.append(.string(s))
            default: throw .malformed
            }
        }
        guard let id = r.string(), r.atEnd else { throw .malformed }
        return PageToken(spec: Int(spec), rawKey: key, sortKey: SortKey(values: values), rowID: id)
    }

    private struct Reader {
        let bytes: [UInt8]
        var i: Int
        let end: Int
        var atEnd: Bool { i == end }
        mutating func byte() -> UInt8? {
            guard i < end else { return nil }
            i += 1
            return bytes[i - 1]
        }
        mutating func u64() -> UInt64? {
            guard i + 8 <= end else { return nil }
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(bytes[i + k]) << (8 * UInt64(k)) }
            i += 8
            return v
        }
        mutating func varint() -> UInt64? {
            var v: UInt64 = 0
            var shift: UInt64 = 0
            while let b = byte() {
                v |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return v }
                shift += 7
                if shift > 56 { return nil }
            }
            return nil
        }
        mutating func string() -> String? {
            guard let n = varint(), n <= UInt64(end - i) else { return nil }
            let from = i
            i += Int(n)
            // Reject invalid UTF-8 rather than repairing it.
            return bytes.withUnsafeBufferPointer { String(validating: UnsafeBufferPointer(rebasing: $0[from..<(from + Int(n))]), as: UTF8.self) }
        }
    }
}

/// Token bytes on the stack (a heap array past its capacity, for very long keys).
private struct TokenBytes {
    let stack: UnsafeMutableBufferPointer<UInt8>
    var count = 0
    var heap: [UInt8]? = nil

    init(stack: UnsafeMutableBufferPointer<UInt8>) { self.stack = stack }

    @inline(__always)
    mutating func append(_ x: UInt8) {
        if heap == nil && count < stack.count { stack[count] = x; count += 1; return }
        spill()
        heap!.append(x)
    }

    mutating func append(_ u: UnsafeBufferPointer<UInt8>) {
        if heap == nil && count + u.count <= stack.count {
            if let base = u.baseAddress { (stack.baseAddress! + count).initialize(from: base, count: u.count) }
            count += u.count
            return
        }
        spill()
        heap!.append(contentsOf: u)
    }

    private mutating func spill() {
        if heap == nil { heap = Array(UnsafeBufferPointer(rebasing: stack[0..<count])) }
    }

    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let heap { return heap.withUnsafeBufferPointer(body) }
        return body(UnsafeBufferPointer(rebasing: stack[0..<count]))
    }
}

private func putU64(_ v: UInt64, _ b: inout TokenBytes) {
    for k in 0..<8 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))) }
}

private func putVarint(_ v: UInt64, _ b: inout TokenBytes) {
    var v = v
    while v >= 0x80 { b.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
    b.append(UInt8(v))
}

/// Reads the string in place (no copy: it may be a shared row's).
private func putString(_ s: String, _ b: inout TokenBytes) {
    if let done = s.utf8.withContiguousStorageIfAvailable({ u -> Bool in
        putVarint(UInt64(u.count), &b)
        b.append(u)
        return true
    }), done { return }
    var s = s
    s.withUTF8 { u in
        putVarint(UInt64(u.count), &b)
        b.append(u)
    }
}
