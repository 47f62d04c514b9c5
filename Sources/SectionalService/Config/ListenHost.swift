#if canImport(Glibc)
import Glibc
#endif

/// What `server.host` (and `SECTIONAL_HOST`, `--host`) may name: an IPv4 or IPv6 address, or a
/// host name (RFC 1123: dot-separated labels of letters, digits and hyphens, none starting or
/// ending with a hyphen, at most 63 bytes each and 253 in all, a final dot allowed; `localhost`
/// among them). Checked when the config is read, so `sectional check` refuses what `serve`
/// could never listen on (it said OK to `"not a host!"`, which `serve` then failed to resolve).
enum ListenHost {
    /// Why `host` cannot be listened on, or nil when it can be.
    static func problem(_ host: String) -> String? {
        isAddress(host) || isName(host) ? nil : "must be an IP address or a host name, not '\(host)'"
    }

    private static func isAddress(_ host: String) -> Bool {
        var buffer = (UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &buffer) { memory in
            inet_pton(AF_INET, host, memory.baseAddress) == 1 || inet_pton(AF_INET6, host, memory.baseAddress) == 1
        }
    }

    private static func isName(_ host: String) -> Bool {
        var bytes = Array(host.utf8)
        if bytes.count > 1, bytes.last == UInt8(ascii: ".") { bytes.removeLast() }   // absolute: `host.`
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        return bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).allSatisfy { label in
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-") else { return false }
            return label.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "-")
            }
        }
    }
}
