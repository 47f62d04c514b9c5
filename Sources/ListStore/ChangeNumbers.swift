import Glibc

/// Change numbers for a store whose earlier numbers may be lost.
public enum ChangeNumbers {
    /// The microseconds since 1970 now: the number a store continues after when the numbers it
    /// handed out before may be gone — a memory store at each start (``MemoryStore/init(after:)``),
    /// a database restored from an older copy (``SQLiteStore``). Above every number such a store
    /// reached in an earlier run, unless that run took more than a number a microsecond on
    /// average (a commit costs more than that) or the clock went back between the two. Below
    /// 2^53, so JavaScript clients read versions exactly, until the year 2255.
    public static func fromClock() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }
}
