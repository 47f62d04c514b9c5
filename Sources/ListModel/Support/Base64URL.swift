/// Unpadded base64url (RFC 4648 §5), for page tokens and other opaque ids.
public enum Base64URL {
    /// The alphabet by arithmetic: a global table would be shared (and retained) by every
    /// thread encoding page tokens.
    @inline(__always)
    private static func alphabet(_ v: Int) -> UInt8 {
        let v = UInt8(truncatingIfNeeded: v)
        if v < 26 { return 0x41 &+ v }
        if v < 52 { return 0x61 &+ (v &- 26) }
        if v < 62 { return 0x30 &+ (v &- 52) }
        return v == 62 ? 0x2D : 0x5F
    }

    /// The unpadded base64url text of `data`, written straight into the string's storage (one
    /// allocation, none when it fits a small string; through an array it was two, per page token).
    public static func encode(_ data: UnsafeBufferPointer<UInt8>) -> String {
        let length = (data.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: length) { out in
            var o = 0
            @inline(__always) func put(_ v: UInt32) {
                out[o] = alphabet(Int(v & 63))
                o += 1
            }
            var i = 0
            while i + 3 <= data.count {
                let v = UInt32(data[i]) << 16 | UInt32(data[i + 1]) << 8 | UInt32(data[i + 2])
                put(v >> 18); put(v >> 12); put(v >> 6); put(v)
                i += 3
            }
            let rest = data.count - i
            if rest == 1 {
                let v = UInt32(data[i]) << 16
                put(v >> 18); put(v >> 12)
            } else if rest == 2 {
                let v = UInt32(data[i]) << 16 | UInt32(data[i + 1]) << 8
                put(v >> 18); put(v >> 12); put(v >> 6)
            }
            return o
        }
    }

    /// The unpadded base64url text of `data`.
    public static func encode(_ data: [UInt8]) -> String { data.withUnsafeBufferPointer { encode($0) } }

    /// The bytes of unpadded base64url text; `nil` for a character outside the alphabet or an impossible length.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)  // one allocation (growing by appends: three per page token)
        var acc: UInt32 = 0
        var bits = 0
        for c in text.utf8 {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"): v = 62
            case UInt8(ascii: "_"): v = 63
            default: return nil
            }
            acc = acc << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
                acc &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits must be zero padding of fewer than 6 bits.
        if bits >= 6 || acc != 0 { return nil }
        return out
    }
}
