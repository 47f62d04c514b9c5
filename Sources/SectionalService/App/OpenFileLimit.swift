import Glibc

/// The process's limit on open files (`RLIMIT_NOFILE`), which caps its connections.
///
/// Each connection takes a descriptor, and the process some dozens besides (the store's files
/// and connections, epoll, pipes, webhook sockets). Services and containers often start with a
/// soft limit of 1,024 under a much higher hard one: with it, `accept` fails past about a
/// thousand connections and the rest wait unanswered in the kernel's queue, where neither
/// `server.connectionLimit`'s closing on arrival nor `503 too-many-event-streams` can reach them.
enum OpenFileLimit {
    /// Descriptors kept for the process itself, beyond one a connection.
    static let reserve = 64

    /// Raises the soft limit to the hard one (as far as the kernel lets it); returns the soft
    /// limit then, nil when it cannot be read.
    static func raise() -> Int? {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// The open files `connections` at once need.
    static func needed(forConnections connections: Int) -> Int { connections + reserve }
}
