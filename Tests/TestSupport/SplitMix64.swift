import Foundation

/// SplitMix64: a small seeded generator, so randomised tests can be replayed.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator seeded from `SECTIONAL_TEST_SEED` when set, else from the system generator;
    /// the seed is printed with `label`, so a failing run can be replayed.
    public static func replayable(_ label: String) -> SplitMix64 {
        let seed = ProcessInfo.processInfo.environment["SECTIONAL_TEST_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("\(label): seed \(seed) (replay with SECTIONAL_TEST_SEED=\(seed))")
        return SplitMix64(seed: seed)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
