import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server on 127.0.0.1 that reads requests and never answers: one that hangs. It counts the
/// request heads it has read and keeps their connections open until it is stopped.
final class SilentServer: @unchecked Sendable {
    private let listener: Int32
    private let lock = NSLock()
    private var connections: [Int32] = []
    private var heads = 0
    private let finished = DispatchSemaphore(value: 0)
    let port: Int

    init() throws {
        struct Failure: Error { let errno: Int32 }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, listen(fd, 16) == 0, named == 0 else {
            let failure = Failure(errno: errno)
            close(fd)
            throw failure
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in
            defer { finished.signal() }
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else {
                    if errno == EINTR { continue }
                    return
                }
                lock.withLock { connections.append(connection) }
                if readHead(connection) { lock.withLock { heads += 1 } }
            }
        }.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    /// Request heads read so far.
    var requests: Int { lock.withLock { heads } }

    /// Stops listening and closes every connection (their requests then fail).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        finished.wait()
        for connection in lock.withLock({ connections }) { close(connection) }
    }

    /// Reads up to the end of a request head (10 s at most); `false` when the client left first.
    private func readHead(_ connection: Int32) -> Bool {
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
