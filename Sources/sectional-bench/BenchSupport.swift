#if canImport(Glibc)
import Glibc
#endif

/// Monotonic nanoseconds.
@inline(__always)
func nowNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Resident set size in KiB, from /proc/self/status (VmRSS).
func residentKiB() -> Int {
    guard let f = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, f) != nil {
        let s = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if s.hasPrefix("VmRSS:") {
            return Int(s.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "0") ?? 0
        }
    }
    return 0
}

/// Percentile of sorted nanosecond samples.
func percentile(_ sorted: [UInt64], _ p: Double) -> UInt64 {
    guard !sorted.isEmpty else { return 0 }
    let i = min(sorted.count - 1, Int(Double(sorted.count - 1) * p + 0.5))
    return sorted[i]
}

func micros(_ ns: UInt64) -> String { format(Double(ns) / 1000, digits: 2) + " µs" }
func seconds(_ ns: UInt64) -> String { format(Double(ns) / 1e9, digits: 3) + " s" }

func format(_ x: Double, digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let v = Int((x * scale + 0.5))
    let whole = v / Int(scale)
    var frac = String(v % Int(scale))
    while frac.count < digits { frac = "0" + frac }
    return digits == 0 ? "\(whole)" : "\(whole).\(frac)"
}

/// SplitMix64, for reproducible data.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
