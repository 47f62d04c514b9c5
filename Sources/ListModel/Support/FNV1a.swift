/// 64-bit FNV-1a: a deterministic hash (unlike Swift's per-process seeded `Hasher`), used for
/// definition fingerprints, page-token binding and index sharding.
public struct FNV1a: Sendable {
    /// The current hash value.
    public var value: UInt64 { state }
    @usableFromInline var state: UInt64 = 0xcbf2_9ce4_8422_2325

    /// The hash of no bytes (the FNV offset basis).
    public init() {}

    /// Mixes bytes into the hash. Inlinable so that callers in other modules get a loop
    /// specialized to their sequence: unspecialized, each byte went through the sequence's
    /// witness table (~350 instructions a byte; tagging the served documents at start-up was
    /// 92 million instructions, 4% of a 100,000-record start under callgrind).
    @inlinable
    public mutating func combine<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        var h = state
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        state = h
    }

    /// Mixes a string's UTF-8 bytes followed by a 0xFF separator (never in UTF-8).
    public mutating func combine(_ s: String) {
        var s = s
        s.withUTF8 { combine($0) }
        combine(CollectionOfOne(0xFF))
    }

    /// Hash of a string's UTF-8 bytes.
    public static func hash(_ s: String) -> UInt64 {
        var h = FNV1a()
        var s = s
        s.withUTF8 { h.combine($0) }
        return h.value
    }
}
