import Foundation

/// Text as search compares it: Unicode simple case folding, and the diacritics of Latin letters
/// removed ("Émilie", "EMILIE" and "émilie" all fold to "emilie"). Diacritics on letters of
/// other scripts are kept (they can distinguish letters there). The result is UTF-8, so a
/// folded query is found in a folded text by a plain byte search (UTF-8 never matches inside a
/// character).
enum SearchFolding {
    /// What separates a record's search fields in its searchable text (U+001F); folding writes
    /// it as a space, so neither a field's text nor a query holds it and no match spans fields.
    static let fieldSeparator: UInt8 = 0x1F

    /// `text` folded, as UTF-8.
    static func fold(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        fold(text, into: &out)
        return out
    }

    /// Appends `text` folded to `out`.
    static func fold(_ text: String, into out: inout [UInt8]) {
        // ASCII over the string's contiguous bytes (every native string's), lowercased in place.
        let folded = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return false }
            let start = out.count
            out.append(contentsOf: bytes)
            out.withUnsafeMutableBufferPointer { buffer in
                for i in start..<buffer.count {
                    if buffer[i] &- 0x41 < 26 { buffer[i] |= 0x20 } else if buffer[i] == Self.fieldSeparator { buffer[i] = 0x20 }
                }
            }
            return true
        }
        if folded == true { return }
        let utf8 = text.utf8
        if folded == nil, utf8.allSatisfy({ $0 < 0x80 }) {
            out.reserveCapacity(out.count + utf8.count)
            for byte in utf8 { out.append(byte &- 0x41 < 26 ? byte | 0x20 : byte == Self.fieldSeparator ? 0x20 : byte) }
            return
        }
        var afterLatin = false
        for scalar in text.unicodeScalars {
            var value = scalar.value
            if value < 0x80 {
                let byte = UInt8(value)
                out.append(byte &- 0x41 < 26 ? byte | 0x20 : byte == Self.fieldSeparator ? 0x20 : byte)
                afterLatin = (byte | 0x20) &- 0x61 < 26
                continue
            }
            // A combining diacritic on a Latin letter (text written decomposed).
            if afterLatin, (0x300...0x36F).contains(value) { continue }
            if let base = latinBases[value] { value = base }
            value = caseFold(value)
            appendUTF8(value, to: &out)
            afterLatin = isLatinLetter(value)
        }
    }

    /// The simple case folding of one scalar: its lowercase when that is a single scalar, with
    /// the folds that differ from lowercasing.
    private static func caseFold(_ value: UInt32) -> UInt32 {
        if let special = specialFolds[value] { return special }
        guard let scalar = Unicode.Scalar(value) else { return value }
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        guard lower.count == 1, let only = lower.first else { return value }
        return only.value
    }

    /// Simple case folds that are not the scalar's lowercase (CaseFolding.txt, status C and S).
    private static let specialFolds: [UInt32: UInt32] = [
        0x00B5: 0x03BC, 0x017F: 0x0073, 0x0345: 0x03B9, 0x03C2: 0x03C3, 0x03D0: 0x03B2, 0x03D1: 0x03B8,
        0x03D5: 0x03C6, 0x03D6: 0x03C0, 0x03F0: 0x03BA, 0x03F1: 0x03C1, 0x03F5: 0x03B5, 0x1E9B: 0x1E61,
        0x1E9E: 0x00DF, 0x1FBE: 0x03B9,
    ]

    /// Latin letters with diacritics → their letter without (from the canonical decomposition,
    /// plus the letters whose stroke does not decompose: ø, ł, đ, ħ, ŧ).
    private static let latinBases: [UInt32: UInt32] = {
        var table: [UInt32: UInt32] = [
            0xD8: 0x4F, 0xF8: 0x6F, 0x141: 0x4C, 0x142: 0x6C, 0x110: 0x44, 0x111: 0x64,
            0x126: 0x48, 0x127: 0x68, 0x166: 0x54, 0x167: 0x74,
        ]
        for range: ClosedRange<UInt32> in [0xC0...0x24F, 0x1E00...0x1EFF] {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                let parts = Array(String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars)
                guard parts.count > 1, parts.dropFirst().allSatisfy({ (0x300...0x36F).contains($0.value) }) else { continue }
                table[value] = parts[0].value
            }
        }
        return table
    }()

    private static func isLatinLetter(_ value: UInt32) -> Bool {
        (value | 0x20) &- 0x61 < 26 || (0xC0...0x24F).contains(value) || (0x1E00...0x1EFF).contains(value)
    }

    private static func appendUTF8(_ value: UInt32, to out: inout [UInt8]) {
        guard let scalar = Unicode.Scalar(value) else { return }
        out.append(contentsOf: UTF8.encode(scalar)!)
    }
}
