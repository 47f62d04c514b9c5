/// What a page token is bound to: a list and a view (`nil` for the default view).
public struct PageBinding: Sendable, Hashable {
    /// The list name.
    public let list: String
    /// The view id; `nil` for the default view.
    public let view: String?
    /// What a token carries of the binding, hashed once here: a page read decodes a token and
    /// encodes the next one against the same binding.
    let hash: UInt64

    /// A binding to a list and a view.
    public init(list: String, view: String?) {
        self.list = list
        self.view = view
        var h = FNV1a()
        h.combine(list)
        if let view { h.combine(CollectionOfOne(1)); h.combine(view) } else { h.combine(CollectionOfOne(0)) }
        hash = h.value
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
/// deleted meanwhile.
///
/// **Size**: at most ``maxTextLength`` characters whatever the data. Strings (section key,
/// string sort values; never the row id, a name of at most 128 bytes) longer than a budget are cut to a prefix on a character
/// boundary, and a number kept as long text is replaced by a double just before it in the
/// field's direction; the token is then marked *cut* and carries hashes of the full section key
/// and of the full position. Reading a cut token first finds the row by id: when it is still
/// in the same section with the same sort key (the hashes match), the position is exact.
/// Otherwise (the row was deleted or moved) the position is the cut one, which never lies after
/// the true one: rows that share the cut prefix may be delivered again, none is skipped.
///
/// **Guess**: the token also carries where the next page began in its section when it was
/// written (the row's index after the named one). Reading it checks that guess against the two
/// rows around it (the named position must fall between them) before searching: a walk through
/// a list that has not changed, or changed only after the page, finds its place without a
/// binary search. A wrong guess (rows inserted or deleted before it, a forged one) costs only
/// the check.
///
/// **Where the page ended**: whether rows of the named row's section were left for the next
/// page (``endedInsideSection``), which tells the next page which sections without visible rows
/// the page already listed when the rows changed between the two reads (see
/// ``ListSnapshot/page(size:token:view:binding:)``).
///
/// **Encoding** (then base64url, unpadded): version byte `3`, 8-byte binding hash, spec index,
/// flags (bit 0: cut, then the two 8-byte hashes and the key's explicit-order rank; bit 1: the
/// page ended inside its section), section key, sort values (typed), row id, the guess (varint),
/// 4-byte checksum. Version `2` tokens, written before the guess, have none and are still read;
/// tokens written before bit 1 read as ending at their section's end.
public struct PageToken: Sendable, Equatable {
    let spec: Int
    let rawKey: String
    let sortKey: SortKey
    let rowID: String
    /// Set when a field was cut: hashes of the full section key and of the full position.
    let cut: Cut?
    /// Where the next page began in the section when the token was written (see the type's
    /// doc); nil in a version 2 token.
    let guess: Int?
    /// Whether the page ended with rows of the named row's section still to come.
    let endedInsideSection: Bool

    struct Cut: Sendable, Equatable {
        let keyHash: UInt64
        let positionHash: UInt64
        /// The full key's rank in an explicit section order (`Int.max`: ordered by code points),
        /// which a cut key may not have.
        let keyRank: Int
    }

    /// The longest token text: 1 KiB.
    public static let maxTextLength = 1024
    /// Raw bytes that fit ``maxTextLength`` once in base64url.
    static let maxBytes = maxTextLength / 4 * 3

    init(spec: Int, rawKey: String, sortKey: SortKey, rowID: String, cut: Cut? = nil, guess: Int? = nil,
         endedInsideSection: Bool = false) {
        self.spec = spec
        self.rawKey = rawKey
        self.sortKey = sortKey
        self.rowID = rowID
        self.cut = cut
        self.guess = guess
        self.endedInsideSection = endedInsideSection
    }

    /// The most `sortBy` fields a section spec may have: a token with as many sort values, each
    /// string cut to 4 bytes, fits ``maxBytes`` (with more, `encode` could not write one).
    static let maxSortFields = 64

    /// Encodes a position without building a token (the values are only read, so a caller can
    /// pass a shared row's fields without copying them). `order` gives the field directions and
    /// `keyOrder` the section key's rank and direction (a cut value must not move the position
    /// forward). `guess` is the index in its section of the row after the position;
    /// `endedInsideSection`, whether that row is the section's (the page left some of it).
    static func encode(spec: Int, rawKey: String, sortKey: SortKey, rowID: String, order: RowOrder,
                       keyOrder: (rank: Int, descending: Bool), binding: PageBinding, guess: Int,
                       endedInsideSection: Bool = false) -> String {
        // Each string but the row id gets at most `cap` bytes; a token still too long is redone
        // with a smaller cap (only sort keys with many fields get there). The row id is never
        // cut: a cut token finds its row by id, and a cut id would find none (the page would
        // then start at the cut position, before the row, and serve it again). Ids are names,
        // at most 128 bytes, so with cap 4 a token holds at most
        // 1 + 8 + 3 + 17 + 5 + 6 + 1 + 64 × 9 + 130 + 10 + 4 bytes: under `maxBytes`.
        for cap in [256, 96, 24, 4] {
            if let text = encode(spec: spec, rawKey: rawKey, sortKey: sortKey, rowID: rowID, order: order,
                                 keyOrder: keyOrder, binding: binding, guess: guess,
                                 endedInsideSection: endedInsideSection, cap: cap) {
                return text
            }
        }
        preconditionFailure("a page token with every string cut to 4 bytes is still too long")
    }

    private static func encode(spec: Int, rawKey: String, sortKey: SortKey, rowID: String, order: RowOrder,
                               keyOrder: (rank: Int, descending: Bool), binding: PageBinding, guess: Int,
                               endedInsideSection: Bool, cap: Int) -> String? {
        let values = sortKey.values
        var isCut = utf8Count(rawKey) > cap
        if !isCut {
            for v in values {
                switch v {
                case .string(let s): if utf8Count(s) > cap { isCut = true }
                case .decimal(let x): if x.text.utf8.count > cap { isCut = true }
                default: break
                }
            }
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { stack -> String? in
            var b = TokenBytes(stack: stack)
            b.append(3)
            putU64(binding.hash, &b)
            putVarint(UInt64(spec), &b)
            b.append((isCut ? 1 : 0) | (endedInsideSection ? 2 : 0))
            if isCut {
                putU64(FNV1a.hash(rawKey), &b)
                putU64(positionHash(spec: spec, rawKey: rawKey, sortKey: sortKey, rowID: rowID), &b)
                putVarint(keyOrder.rank == Int.max ? 0 : UInt64(keyOrder.rank) + 1, &b)
            }
            putString(rawKey, cap: cap, raise: keyOrder.descending && keyOrder.rank == Int.max, &b)
            func put(_ v: SortValue, descending: Bool) {
                switch v {
                case .missing: b.append(0)
                case .bool(let x): b.append(x ? 2 : 1)
                case .int(let i): b.append(3); putU64(UInt64(bitPattern: i), &b)
                case .double(let d): b.append(4); putU64(d.bitPattern, &b)
                case .decimal(let x):
                    if x.text.utf8.count <= cap {
                        b.append(6); putString(x.text, cap: cap, raise: false, &b)
                    } else {
                        // A double strictly before the exact value in this field's direction
                        // (past the finite range: the last value of the type sorting before
                        // numbers — `true`, or `""` in a descending field).
                        let bound = descending ? x.nearest.nextUp : x.nearest.nextDown
                        if bound.isFinite { b.append(4); putU64(bound.bitPattern, &b) }
                        else if descending { b.append(5); putVarint(0, &b) }
                        else { b.append(2) }
                    }
                case .string(let s): b.append(5); putString(s, cap: cap, raise: descending, &b)
                }
            }
            switch sortKey {
            case .none: putVarint(0, &b)
            case .one(let v): putVarint(1, &b); put(v, descending: order.isDescending(0))
            case .many(let vs):
                putVarint(UInt64(vs.count), &b)
                for (k, v) in vs.enumerated() { put(v, descending: order.isDescending(k)) }
            }
            putString(rowID, cap: .max, raise: false, &b)
            putVarint(UInt64(max(0, guess)), &b)
            let c = b.withBytes { checksum($0) }
            for k in 0..<4 { b.append(UInt8(truncatingIfNeeded: c >> (8 * UInt32(k)))) }
            guard b.length <= maxBytes else { return nil }
            return b.withBytes { Base64URL.encode($0) }
        }
    }

    /// A hash of a full position (spec, section key, sort values, row id), to recognise the row
    /// a cut token names.
    static func positionHash(spec: Int, rawKey: String, sortKey: SortKey, rowID: String) -> UInt64 {
        var h = FNV1a()
        h.combine(String(spec))
        h.combine(rawKey)
        for v in sortKey.values {
            switch v {
            case .missing: h.combine(CollectionOfOne(0))
            case .bool(let x): h.combine(CollectionOfOne(x ? 2 : 1))
            case .int(let i): h.combine(CollectionOfOne(3)); h.combine(String(i))
            case .double(let d): h.combine(CollectionOfOne(4)); h.combine(String(d.bitPattern))
            case .decimal(let x): h.combine(CollectionOfOne(6)); h.combine(x.text)
            case .string(let s): h.combine(CollectionOfOne(5)); h.combine(s)
            }
        }
        h.combine(rowID)
        return h.value
    }

    /// The 4-byte checksum a token's bytes end with: their FNV-1a hash folded to 32 bits.
    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var h = FNV1a()
        h.combine(bytes)
        return UInt32(truncatingIfNeeded: h.value ^ (h.value >> 32))
    }

    /// Decodes a token and checks its binding.
    public static func decode(_ text: String, binding: PageBinding) throws(PageTokenError) -> PageToken {
        guard text.utf8.count <= maxTextLength, let b = Base64URL.decode(text), b.count >= 15, b[0] == 2 || b[0] == 3 else {
            throw .malformed
        }
        let c = checksum(b[0..<(b.count - 4)])
        var stored: UInt32 = 0
        for k in 0..<4 { stored |= UInt32(b[b.count - 4 + k]) << (8 * UInt32(k)) }
        guard c == stored else { throw .malformed }
        var r = Reader(bytes: b, i: 1, end: b.count - 4)
        guard let bind = r.u64() else { throw .malformed }
        guard bind == binding.hash else { throw .wrongBinding }
        guard let spec = r.varint(), spec < 1 << 20, let flags = r.byte(), flags <= 3 else { throw .malformed }
        var cut: Cut? = nil
        if flags & 1 != 0 {
            guard let k = r.u64(), let p = r.u64(), let rank = r.varint(), rank <= 1 << 32 else { throw .malformed }
            cut = Cut(keyHash: k, positionHash: p, keyRank: rank == 0 ? Int.max : Int(rank) - 1)
        }
        guard let key = r.string(), let n = r.varint(), n <= maxSortFields else { throw .malformed }
        var values: [SortValue] = []
        values.reserveCapacity(Int(n))
        for _ in 0..<n {
            guard let t = r.byte() else { throw .malformed }
            switch t {
            case 0: values.append(.missing)
            case 1: values.append(.bool(false))
            case 2: values.append(.bool(true))
            case 3: guard let x = r.u64() else { throw .malformed }; values.append(.int(Int64(bitPattern: x)))
            case 4:
                guard let x = r.u64(), Double(bitPattern: x).isFinite else { throw .malformed }
                values.append(.double(Double(bitPattern: x)))
            case 5: guard let s = r.string() else { throw .malformed }; values.append(.string(s))
            case 6:
                guard let s = r.string(), let v = try? JSONParser.parse(s), v.isNumber else { throw .malformed }
                values.append(SortValue(v))
            default: throw .malformed
            }
        }
        guard let id = r.string() else { throw .malformed }
        var guess: Int? = nil
        if b[0] == 3 {
            guard let g = r.varint(), g <= 1 << 40 else { throw .malformed }
            guess = Int(g)
        }
        guard r.atEnd else { throw .malformed }
        return PageToken(spec: Int(spec), rawKey: key, sortKey: SortKey(values: values), rowID: id, cut: cut, guess: guess,
                         endedInsideSection: flags & 2 != 0)
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
            // Reject invalid UTF-8 rather than repairing it. ASCII (most keys and ids) is valid as
            // it is: through `String(validating:)`, a token of three ASCII strings took 6,052
            // instructions to read instead of 3,804 (callgrind, random pages by token).
            return bytes.withUnsafeBufferPointer { all in
                let text = UnsafeBufferPointer(rebasing: all[from..<(from + Int(n))])
                return text.allSatisfy({ $0 < 0x80 }) ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            }
        }
    }
}

/// Token bytes on the stack (a heap array past its capacity, for very long keys).
private struct TokenBytes {
    let stack: UnsafeMutableBufferPointer<UInt8>
    var count = 0
    var heap: [UInt8]? = nil

    init(stack: UnsafeMutableBufferPointer<UInt8>) { self.stack = stack }

    /// Bytes written so far.
    var length: Int { heap?.count ?? count }

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

/// UTF-8 length without copying.
private func utf8Count(_ s: String) -> Int { s.utf8.count }

/// Puts a string, cut to at most `cap` bytes on a character boundary when longer. `raise`
/// (for a descending field) then bumps the prefix's last character, so the cut value sorts
/// before the full one in descending order too (see ``raisedPrefix(_:)``). Reads the string
/// in place (no copy: it may be a shared row's).
private func putString(_ s: String, cap: Int, raise: Bool, _ b: inout TokenBytes) {
    func put(_ u: UnsafeBufferPointer<UInt8>) {
        if u.count <= cap {
            putVarint(UInt64(u.count), &b)
            b.append(u)
            return
        }
        var n = cap
        while n > 0 && u[n] & 0xC0 == 0x80 { n -= 1 }   // back to the start of a character
        let prefix = UnsafeBufferPointer(rebasing: u[0..<n])
        if raise {
            let raised = raisedPrefix(prefix)
            putVarint(UInt64(raised.count), &b)
            raised.withUnsafeBufferPointer { b.append($0) }
        } else {
            putVarint(UInt64(n), &b)
            b.append(prefix)
        }
    }
    if let done = s.utf8.withContiguousStorageIfAvailable({ u -> Bool in put(u); return true }), done { return }
    var s = s
    s.withUTF8 { put($0) }
}

/// The smallest-looking string above every string that starts with `prefix`: the prefix with
/// its last character raised by one (characters at U+10FFFF dropped first; surrogates skipped).
/// When nothing can be raised (a prefix of U+10FFFF characters only) the prefix is returned as
/// is; a descending cut of such a value may then skip rows that share it.
func raisedPrefix(_ prefix: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    var scalars = Array(String(decoding: prefix, as: UTF8.self).unicodeScalars)
    while let last = scalars.last {
        scalars.removeLast()
        var v = last.value + 1
        if v == 0xD800 { v = 0xE000 }
        if let next = Unicode.Scalar(v) {
            scalars.append(next)
            var out: [UInt8] = []
            for sc in scalars { out.append(contentsOf: String(sc).utf8) }
            return out
        }
    }
    return Array(prefix)
}
