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
    ///
    /// Four characters to three bytes at a time over the text's contiguous UTF-8, into an array
    /// made at its final size: a bit accumulator fed through the `UTF8View`'s iterator, a byte
    /// appended at a time, was 4,400 instructions for a 70-character page token (callgrind).
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { chars -> [UInt8]? in
            let rest = chars.count % 4
            if rest == 1 { return nil }
            let count = chars.count / 4 * 3 + max(0, rest - 1)
            var bad: UInt32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                var i = 0, o = 0
                while i + 4 <= chars.count {
                    let a = sextet(chars[i]), b = sextet(chars[i + 1]), c = sextet(chars[i + 2]), d = sextet(chars[i + 3])
                    bad |= a | b | c | d
                    let v = a << 18 | b << 12 | c << 6 | d
                    out[o] = UInt8(truncatingIfNeeded: v >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: v)
                    i += 4
                    o += 3
                }
                // The last 2 or 3 characters: 1 or 2 bytes, then 4 or 2 bits that must be zero.
                // `bad` collects every sextet: 64 (bit 6) only from a character outside the alphabet.
                if rest == 2 {
                    let a = sextet(chars[i]), b = sextet(chars[i + 1])
                    bad |= a | b | (b & 0xF == 0 ? 0 : 64)
                    let v = a << 6 | b
                    out[o] = UInt8(truncatingIfNeeded: v >> 4)
                } else if rest == 3 {
                    let a = sextet(chars[i]), b = sextet(chars[i + 1]), c = sextet(chars[i + 2])
                    bad |= a | b | c | (c & 0x3 == 0 ? 0 : 64)
                    let v = a << 12 | b << 6 | c
                    out[o] = UInt8(truncatingIfNeeded: v >> 10)
                    out[o + 1] = UInt8(truncatingIfNeeded: v >> 2)
                }
                initialized = count
            }
            return bad & 64 == 0 ? bytes : nil
        }
    }

    /// A character's value (0–63), or 64 for one outside the alphabet.
    @inline(__always)
    private static func sextet(_ c: UInt8) -> UInt32 {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(c &- UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(c &- UInt8(ascii: "a")) &+ 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(c &- UInt8(ascii: "0")) &+ 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return 64
        }
    }
}
