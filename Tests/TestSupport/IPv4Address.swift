#if canImport(Glibc)
import Glibc
#endif

/// Lends `body` the IPv4 socket address `host` (a dotted quad) and `port` as the sockets API
/// takes one (`bind`, `connect`), with its length; returns what `body` returns.
func withIPv4Address<R>(_ host: String, port: Int = 0, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr(host)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}
