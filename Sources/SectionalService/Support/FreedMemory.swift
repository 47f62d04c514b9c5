import CGlibc
import Glibc

/// Memory the process freed, given back to the system.
///
/// Release builds allocate with jemalloc (linked into the `sectional` executable; see
/// `Package.swift`), debug and sanitizer builds with glibc's malloc. Either keeps memory freed
/// after a large passing allocation for the process: glibc for good (after a 1,000,000-record
/// search corpus was made, 960 MiB of a 2.4 GiB resident set were free memory kept this way),
/// jemalloc for its decay time (10 s), which is what makes its allocations cheap while a start
/// parses a million records and drops them page by page. So after such passes — the start-up
/// build, the making of a search corpus — this hands the freed memory back at once: jemalloc's
/// `arena.<all>.purge` when jemalloc is the allocator, glibc's `malloc_trim` otherwise. Walks
/// every arena: a few milliseconds for each GiB freed, so it is called after such passes, not
/// per request.
enum FreedMemory {
    static func release() {
        if let mallctl = jemallocControl {
            _ = "arena.4096.purge".withCString { mallctl($0, nil, nil, nil, 0) }  // 4096: MALLCTL_ARENAS_ALL
        } else {
            _ = malloc_trim(0)
        }
    }

    /// The allocator in use, as the logs name it: `jemalloc` or `glibc`.
    static var allocator: String { jemallocControl == nil ? "glibc" : "jemalloc" }

    private typealias MallocControl = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?,
                                                      UnsafeMutablePointer<Int>?, UnsafeMutableRawPointer?, Int) -> Int32

    /// jemalloc's `mallctl`, when jemalloc is linked in (or preloaded); nil under glibc's malloc.
    private static let jemallocControl: MallocControl? = {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "mallctl") else { return nil }
        return unsafeBitCast(symbol, to: MallocControl.self)
    }()
}
