/// A time zone as a plain value: its IANA name and a table of the UTC offsets it has used, each
/// from the instant it began. The `date` formatter writes local time with it.
///
/// The table is worked out once, when a definition names the zone (the service fills it from the
/// platform's time zone data); looking up an instant is a binary search over it, with no clock
/// and no I/O. Before the first transition the initial offset holds, after the last one the last.
public struct TimeZoneOffsets: Sendable, Equatable {
    /// The moment an offset begins.
    public struct Transition: Sendable, Equatable {
        /// Seconds since 1970-01-01T00:00:00Z.
        public var start: Int64
        /// Seconds east of UTC from `start` on (Berlin summer time: 7200).
        public var offset: Int

        /// An offset that begins at `start`.
        public init(start: Int64, offset: Int) {
            self.start = start
            self.offset = offset
        }
    }

    /// The zone's name (`Europe/Berlin`, `UTC`).
    public let identifier: String
    /// Transition starts, ascending.
    private let starts: [Int64]
    /// `offsets[0]` holds before `starts[0]`; `offsets[i + 1]` from `starts[i]` on.
    private let offsets: [Int32]

    /// A zone named `identifier` whose offset is `initialOffset` before the first of
    /// `transitions` (given in any order; one start given twice keeps the last).
    public init(identifier: String, initialOffset: Int, transitions: [Transition] = []) {
        self.identifier = identifier
        var starts: [Int64] = []
        var offsets: [Int32] = [Int32(clamping: initialOffset)]
        for t in transitions.sorted(by: { $0.start < $1.start }) {
            if starts.last == t.start { offsets[offsets.count - 1] = Int32(clamping: t.offset); continue }
            starts.append(t.start)
            offsets.append(Int32(clamping: t.offset))
        }
        self.starts = starts
        self.offsets = offsets
    }

    /// Coordinated Universal Time: offset 0 always (what a list without `timeZone` uses).
    public static let utc = TimeZoneOffsets(identifier: "UTC", initialOffset: 0)

    /// The zones known without the platform's data: `UTC` (also `Etc/UTC`, `GMT`, `Etc/GMT`).
    public static func builtIn(_ identifier: String) -> TimeZoneOffsets? {
        switch identifier {
        case "UTC", "Etc/UTC", "GMT", "Etc/GMT": return TimeZoneOffsets(identifier: identifier, initialOffset: 0)
        default: return nil
        }
    }

    /// Seconds east of UTC at the instant `seconds` (since the epoch).
    @inline(__always)
    public func offset(at seconds: Int64) -> Int {
        if starts.isEmpty { return Int(offsets[0]) }
        var lo = 0, hi = starts.count   // answer: the number of starts <= seconds
        while lo < hi {
            let mid = (lo + hi) >> 1
            if starts[mid] <= seconds { lo = mid + 1 } else { hi = mid }
        }
        return Int(offsets[lo])
    }
}
