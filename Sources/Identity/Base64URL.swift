/// Base64url without padding (RFC 4648 §5, as JWS uses it). Decoding is strict: only the
/// URL-safe alphabet, no `=` padding, no whitespace, and the unused low bits of the last
/// character must be zero, so every byte string has exactly one accepted spelling.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The unpadded base64url text of `bytes`.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            if second != nil { output.append(alphabet[Int(group >> 6 & 63)]) }
            if third != nil { output.append(alphabet[Int(group & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes spelled by `text`, or nil when it is not canonical unpadded base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        decode(text.utf8)
    }

    /// The bytes spelled by the ASCII `text`, or nil when it is not canonical unpadded base64url.
    public static func decode<Text: Collection>(_ text: Text) -> [UInt8]? where Text.Element == UInt8 {
        if text.count % 4 == 1 { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var group: UInt32 = 0
        var held = 0
        for character in text {
            guard let value = sextet(character) else { return nil }
            group = group << 6 | UInt32(value)
            held += 1
            if held == 4 {
                output.append(UInt8(group >> 16 & 0xFF))
                output.append(UInt8(group >> 8 & 0xFF))
                output.append(UInt8(group & 0xFF))
                group = 0
                held = 0
            }
        }
        switch held {
        case 2:
            guard group & 0x0F == 0 else { return nil }
            output.append(UInt8(group >> 4 & 0xFF))
        case 3:
            guard group & 0x03 == 0 else { return nil }
            output.append(UInt8(group >> 10 & 0xFF))
            output.append(UInt8(group >> 2 & 0xFF))
        default:
            break
        }
        return output
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
