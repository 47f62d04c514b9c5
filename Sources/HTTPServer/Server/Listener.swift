import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The listening socket and the one thread that accepts on it, handing each new connection to
/// `onAccept` (which owns it from then on: libmicrohttpd's `MHD_add_connection`).
///
/// Why the server accepts by itself instead of letting libmicrohttpd do it: stopping a daemon's
/// accepting (`MHD_quiesce_daemon`) in libmicrohttpd 0.9.75 with a thread pool and epoll races
/// any worker that is awake at that moment — both take the listening socket out of the worker's
/// epoll set, and when the worker wins the library aborts the process ("Failed to remove listen
/// FD from epoll set"; seen in CI). Here no worker ever sees the listening socket, so ``close()``
/// is a plain close: connections made after it are refused by the kernel.
///
/// Cost: one thread asleep in `poll` and one `accept` per connection; keep-alive connections
/// pay it once. Why `@unchecked Sendable`: `socket` and `wake` are `let`s; the thread's end is
/// awaited through `finished` before either is closed.
final class Listener: @unchecked Sendable {
    /// The bound port (the kernel's choice when asked for port 0).
    let port: Int
    private let socket: Int32
    /// A pipe: ``close()`` writes a byte to `wake.writer` to end the accepting thread's `poll`.
    private let wake: (reader: Int32, writer: Int32)
    /// Signalled by the accepting thread as it ends.
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)

    /// Binds and listens on `address` (backlog 1024, `SO_REUSEADDR`; IPv6 only for an IPv6
    /// address). Throws ``ServerStartError`` with the system's reason when it cannot.
    init(address: SocketAddress) throws {
        var address = address
        let family = Int32(address.storage.ss_family)
        let socket = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard socket >= 0 else { throw ServerStartError(description: String(cString: strerror(errno))) }
        var on: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if address.isIPv6 { setsockopt(socket, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size)) }
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 }
        }
        guard bound, listen(socket, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(socket)
            throw ServerStartError(description: reason)
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            Glibc.close(socket)
            throw ServerStartError(description: "pipe: \(String(cString: strerror(errno)))")
        }
        self.socket = socket
        self.wake = (ends[0], ends[1])
        self.port = Self.boundPort(of: socket)
    }

    deinit { close() }

    /// Starts the accepting thread. `onAccept` receives each new connection's socket and peer
    /// address (valid during the call) and takes ownership of the socket.
    func start(onAccept: @escaping @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Void) {
        let thread = Thread { [self] in
            acceptUntilClosed(onAccept)
            finished.signal()
        }
        thread.name = "accept"
        started.store(true, ordering: .releasing)
        thread.start()
    }

    /// Stops accepting and closes the listening socket; returns once the accepting thread has
    /// ended, so `onAccept` is never called after this returns. Idempotent.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        if write(wake.writer, &byte, 1) == 1, started.load(ordering: .acquiring) {
            finished.wait()
        }
        Glibc.close(socket)
        Glibc.close(wake.reader)
        Glibc.close(wake.writer)
    }

    private func acceptUntilClosed(_ onAccept: @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Void) {
        var descriptors = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.reader, events: Int16(POLLIN), revents: 0)]
        var backoff: Int32 = -1
        while true {
            // After a failed accept for want of descriptors or memory, the listening socket is
            // left out for 100 ms so the loop does not spin on a connection it cannot take.
            let count = backoff < 0 ? 2 : 1
            let ready = descriptors.withUnsafeMutableBufferPointer { poll($0.baseAddress! + (2 - count), nfds_t(count), backoff) }
            backoff = -1
            if ready < 0 {
                if errno != EINTR { backoff = 100 }  // out of memory for the poll set: wait, then retry
                continue
            }
            if descriptors[1].revents != 0 { return }
            descriptors[1].revents = 0
            guard descriptors[0].revents != 0 || count == 1 else { continue }
            descriptors[0].revents = 0
            if !acceptPending(onAccept) { backoff = 100 }
        }
    }

    /// Accepts until none is waiting. False when accepting failed for want of resources.
    private func acceptPending(_ onAccept: @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Void) -> Bool {
        while true {
            var peer = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let connection = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept(socket, $0, &length)  // libmicrohttpd makes it non-blocking
                }
            }
            guard connection >= 0 else {
                switch errno {
                case EAGAIN, EWOULDBLOCK: return true
                case EINTR, ECONNABORTED, EPROTO: continue
                default: return false  // EMFILE, ENFILE, ENOBUFS, ENOMEM
                }
            }
            withUnsafePointer(to: &peer) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { onAccept(connection, $0, length) } }
        }
    }

    private static func boundPort(of socket: Int32) -> Int {
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return withUnsafeBytes(of: &bound) { bytes in
            let raw = bytes.load(fromByteOffset: 2, as: UInt16.self)  // sin_port / sin6_port: same offset
            return Int(UInt16(bigEndian: raw))
        }
    }
}
