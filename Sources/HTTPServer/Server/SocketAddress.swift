import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// A resolved socket address to bind, owned as bytes.
struct SocketAddress {
    var storage = sockaddr_storage()
    var isIPv6: Bool { storage.ss_family == sa_family_t(AF_INET6) }

    /// Resolves `host` (a literal or a name) numerically first, then by name, for `port`. A name
    /// with addresses of both families binds its IPv4 one (`localhost` is `::1` first for glibc,
    /// and a server on `[::1]` alone refuses every client of `127.0.0.1`).
    init(host: String, port: Int) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var result: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &result)
        guard code == 0, let first = result else {
            throw ServerStartError(description: "cannot resolve host \(host): \(String(cString: gai_strerror(code)))")
        }
        defer { freeaddrinfo(result) }
        var chosen = first
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = next {
            if candidate.pointee.ai_family == AF_INET {
                chosen = candidate
                break
            }
            next = candidate.pointee.ai_next
        }
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: chosen.pointee.ai_addr, count: Int(chosen.pointee.ai_addrlen)))
        }
    }
}
