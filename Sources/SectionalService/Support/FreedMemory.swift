import CMalloc

/// Memory the process freed, given back to the system.
enum FreedMemory {
    /// Returns what glibc's allocator holds free to the system (`malloc_trim`). After a large
    /// passing allocation glibc keeps the freed memory for the process: after a 1,000,000-record
    /// search corpus was made (its records read and parsed, then dropped), 960 MiB of a 2.4 GiB
    /// resident set were free memory kept this way. Walks every arena: a few milliseconds for
    /// each GiB freed, so it is called after such passes, not per request.
    static func release() {
        _ = malloc_trim(0)
    }
}
