/// Name rules for lists, collections, ids and keys.
public enum Names {
    /// `true` when `name` matches `^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$` (collections, lists,
    /// records, literal row ids).
    public static func isValid(_ name: String) -> Bool {
        // Over the name's contiguous bytes: the generic walk of its `UTF8View` cost 350
        // instructions for an eight-letter list name, on every list read (callgrind).
        var name = name
        return name.withUTF8 { isValid(utf8: $0) }
    }

    private static func isValid(utf8 u: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !u.isEmpty, u.count <= 128 else { return false }
        var first = true
        for b in u {
            let alnum = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            if first {
                guard alnum else { return false }
                first = false
            } else if !(alnum || b == 0x2E || b == 0x5F || b == 0x7E || b == 0x2D) {
                return false
            }
        }
        return true
    }
}
