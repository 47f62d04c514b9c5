/// One bit for each slot of a ``RowChunk`` (its first ``capacity`` slots: a chunk holds at most
/// ``RowSequence/maxChunk`` rows), kept in step with the slots as rows are inserted and removed:
/// which slots hold a row the chunk retains itself. Plain data, four words; every access is
/// checked against ``capacity``.
struct SlotBits: Equatable {
    /// Slots a set can describe: at least ``RowSequence/maxChunk``.
    static let capacity = 256

    private var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0

    /// No bit set.
    static let none = SlotBits()

    /// Bits `0..<n` set.
    static func first(_ n: Int) -> SlotBits {
        precondition(n >= 0 && n <= capacity, "slot out of range")
        var b = SlotBits()
        b.withWords { w in for k in 0..<4 { w[k] = mask(word: k, first: n) } }
        return b
    }

    /// The bits of word `k` that fall among slots `0..<n`.
    @inline(__always)
    private static func mask(word k: Int, first n: Int) -> UInt64 {
        let bits = min(max(n - 64 * k, 0), 64)
        return bits == 64 ? .max : (1 << UInt64(bits)) - 1
    }

    subscript(i: Int) -> Bool {
        get {
            precondition(i >= 0 && i < SlotBits.capacity, "slot out of range")
            return withWords { $0[i >> 6] >> UInt64(i & 63) & 1 == 1 }
        }
        set {
            precondition(i >= 0 && i < SlotBits.capacity, "slot out of range")
            withWords { w in
                if newValue { w[i >> 6] |= 1 << UInt64(i & 63) } else { w[i >> 6] &= ~(1 << UInt64(i & 63)) }
            }
        }
    }

    /// Set bits among the first `n`.
    func count(in n: Int) -> Int {
        var c = 0
        withWords { (w: UnsafePointer<UInt64>) in
            for k in 0..<4 { c += (w[k] & SlotBits.mask(word: k, first: n)).nonzeroBitCount }
        }
        return c
    }

    /// Moves bits `j...` one up (the last falls off) and sets bit `j` to `value`, as a slot is
    /// inserted at `j`.
    mutating func insert(_ value: Bool, at j: Int) {
        precondition(j >= 0 && j < SlotBits.capacity, "slot out of range")
        withWords { w in
            let wj = j >> 6, low: UInt64 = (1 << UInt64(j & 63)) &- 1
            var carry: UInt64 = 0
            for k in wj..<4 {
                let word = w[k]
                let next = word >> 63
                w[k] = k == wj ? (word & low) | ((word & ~low) << 1) : (word << 1) | carry
                carry = next
            }
        }
        self[j] = value
    }

    /// Returns bit `j` and moves bits `(j+1)...` one down, as the slot at `j` is removed.
    mutating func remove(at j: Int) -> Bool {
        let value = self[j]
        withWords { w in
            let wj = j >> 6, low: UInt64 = (1 << UInt64(j & 63)) &- 1
            var carry: UInt64 = 0
            for k in stride(from: 3, through: wj, by: -1) {
                let word = w[k]
                let next = word & 1
                w[k] = k == wj ? (word & low) | ((word >> 1) & ~low) | (carry << 63) : (word >> 1) | (carry << 63)
                carry = next
            }
        }
        return value
    }

    @inline(__always)
    private mutating func withWords<R>(_ body: (UnsafeMutablePointer<UInt64>) -> R) -> R {
        withUnsafeMutablePointer(to: &self) { $0.withMemoryRebound(to: UInt64.self, capacity: 4, body) }
    }

    @inline(__always)
    private func withWords<R>(_ body: (UnsafePointer<UInt64>) -> R) -> R {
        withUnsafePointer(to: self) { $0.withMemoryRebound(to: UInt64.self, capacity: 4, body) }
    }
}
