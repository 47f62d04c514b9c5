import CMicroHTTPD
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// A response body written over time, for Server-Sent Events and the like.
///
/// The handler returns a ``Response`` carrying a stream; the server sends whatever is
/// ``send(_:)``-ed, as it arrives, until ``close()`` or until the client goes away. While
/// nothing is pending the connection is suspended in libmicrohttpd (no thread waits, no
/// busy loop); ``send(_:)`` resumes it. Sending never blocks: a client that does not read
/// is closed once more than ``maxBufferedBytes`` wait for it. The socket's send buffer is kept
/// small (``socketSendBufferBytes``), so that is soon after it stops reading; a client that
/// hangs up while the stream idles is noticed within a second (see `StreamWatchdog`).
public final class StreamBody: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var closed = false
        /// Set while libmicrohttpd has the connection suspended, waiting for data.
        var suspended = false
        /// The connection's address, once the response is queued; nil after it ended.
        var connection: UInt?
        /// The connection's socket, once the response is queued; -1 after it ended.
        var socket: Int32 = -1
        var ended = false
        /// Bytes handed to libmicrohttpd so far.
        var handedOver = 0
    }

    /// Bytes that may wait for a slow client before the stream is closed.
    public let maxBufferedBytes: Int
    /// The `SO_SNDBUF` asked for a stream's socket (Linux doubles it): without it the kernel lets
    /// megabytes queue for a client that stopped reading before the stream even sees it.
    public static let socketSendBufferBytes: Int32 = 32 << 10
    private let state = Locked(State())
    private let onEnd: Locked<(@Sendable () -> Void)?>

    public init(maxBufferedBytes: Int = 64 << 10, onEnd: (@Sendable () -> Void)? = nil) {
        self.maxBufferedBytes = maxBufferedBytes
        self.onEnd = Locked(onEnd)
    }

    /// Queues bytes for the client; returns false when the stream is closed or ended.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.closed, !state.ended else { return false }
            state.pending.append(contentsOf: bytes)
            if state.pending.count > maxBufferedBytes {
                Self.disconnect(&state)
            } else {
                Self.wake(&state)
            }
            return true
        }
    }

    /// Ends the stream after what is pending has been sent.
    public func close() {
        state.withLock { state in
            state.closed = true
            Self.wake(&state)
        }
    }

    /// True once the connection has ended (client gone or stream finished).
    public var hasEnded: Bool { state.withLock { $0.ended } }

    /// The body bytes handed to libmicrohttpd so far (its chunk framing not counted): what the
    /// request log reports for a stream.
    public var bytesSent: Int { state.withLock { $0.handedOver } }

    /// Drops what is pending and cuts the connection. A client that stopped reading leaves
    /// libmicrohttpd waiting to write, not asking for bytes, so ending the stream would not be
    /// enough; shutting the socket down makes libmicrohttpd close it at once. The socket is still
    /// this connection's: `socket` is reset (in `end()`, under the same lock) before it closes.
    private static func disconnect(_ state: inout State) {
        state.closed = true
        state.pending = []
        if state.socket >= 0 { shutdown(state.socket, Int32(SHUT_RDWR)) }
        wake(&state)
    }

    private static func wake(_ state: inout State) {
        if state.suspended, let address = state.connection {
            state.suspended = false
            MHD_resume_connection(OpaquePointer(bitPattern: address))
        }
    }

    // MARK: - Called by the server

    func attach(_ connection: OpaquePointer) {
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
        let socket = sectional_mhd_connection_fd(connection)
        if socket >= 0 {
            var size = Self.socketSendBufferBytes
            setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        state.withLock { state in
            state.connection = address
            state.socket = socket
        }
    }

    /// Ends the stream if it is idle (suspended) and its client has hung up. Called by the
    /// watchdog: libmicrohttpd does not watch the socket of a suspended connection. While the
    /// connection is suspended it cannot close, so its socket is still this connection's.
    func endIfClientGone() {
        state.withLock { state in
            guard state.suspended, state.socket >= 0 else { return }
            let hungUp: Int16 = 0x2000 /* POLLRDHUP */ | Int16(POLLHUP) | Int16(POLLERR)
            var probe = pollfd(fd: state.socket, events: 0x2000, revents: 0)
            guard poll(&probe, 1, 0) > 0, probe.revents & hungUp != 0 else { return }
            Self.disconnect(&state)
        }
    }

    /// libmicrohttpd asks for bytes: copy what is pending, or suspend until there is some.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        state.withLock { state -> Int in
            if !state.pending.isEmpty {
                let count = min(max, state.pending.count)
                state.pending.withUnsafeBytes { source in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress!, byteCount: count)
                }
                state.pending.removeFirst(count)
                state.handedOver += count
                return count
            }
            if state.closed { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
            if let address = state.connection {
                state.suspended = true
                MHD_suspend_connection(OpaquePointer(bitPattern: address))
            }
            return 0
        }
    }

    /// The response was destroyed: the connection is gone.
    func end() {
        state.withLock { state in
            state.ended = true
            state.connection = nil
            state.socket = -1
            state.suspended = false
            state.pending = []
        }
        let callback = onEnd.withLock { callback -> (@Sendable () -> Void)? in
            defer { callback = nil }
            return callback
        }
        callback?()
    }
}
