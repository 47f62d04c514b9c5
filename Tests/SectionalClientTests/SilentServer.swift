import Foundation
import Locking
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A server on 127.0.0.1 that reads requests and never answers: one that hangs. It counts the
/// request heads it has read and keeps their connections open until it is stopped.
final class SilentServer: @unchecked Sendable {
    private var listener: LoopbackListener?
    private let connections = Locked<[Int32]>([])
    private let heads = Locked(0)

    init() throws {
        listener = try LoopbackListener { [self] connection in
            connections.withLock { $0.append(connection) }
            if Self.readHead(connection) { heads.withLock { $0 += 1 } }
        }
    }

    var port: Int { listener?.port ?? 0 }

    var url: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    /// Request heads read so far.
    var requests: Int { heads.withLock { $0 } }

    /// Stops listening and closes every connection (their requests then fail).
    func stop() {
        listener?.stop()
        for connection in connections.withLock({ $0 }) { close(connection) }
    }

    /// Reads up to the end of a request head (10 s at most); `false` when the client left first.
    private static func readHead(_ connection: Int32) -> Bool {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !buffer.ends(with: [13, 10, 13, 10]) {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            buffer += chunk[0..<count]
        }
        return true
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
