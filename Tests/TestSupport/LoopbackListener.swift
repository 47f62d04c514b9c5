import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on 127.0.0.1 for test servers written by hand (a webhook receiver, a
/// server that never answers): it accepts connections one at a time on a thread of its own and
/// hands each to `handle`, until ``stop()``.
public final class LoopbackListener: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The port it listens on.
    public let port: Int
    private let listener: Int32
    private let finished = DispatchSemaphore(value: 0)

    /// Listens on `port` (0: any free port) and starts accepting; `handle` gets each connection
    /// (closing it or keeping it is the handler's).
    public init(port: Int = 0, handle: @escaping @Sendable (Int32) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withIPv4Address("127.0.0.1", port: port) { bind(fd, $0, $1) }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard bound == 0, listen(fd, 16) == 0, withUnsafeMutablePointer(to: &address, {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }) == 0 else {
            let failure = Failure(description: "cannot listen on 127.0.0.1:\(port): errno \(errno)")
            close(fd)
            throw failure
        }
        listener = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [finished] in
            defer { finished.signal() }
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else {
                    if errno == EINTR { continue }
                    return
                }
                handle(connection)
            }
        }.start()
    }

    /// Stops listening (connections are then refused) and waits for the accepting thread.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        finished.wait()
    }
}
