import CMicroHTTPD
import Synchronization

/// A response body written over time, for Server-Sent Events and the like.
///
/// The handler returns a ``Response`` carrying a stream; the server sends whatever is
/// ``send(_:)``-ed, as it arrives, until ``close()`` or until the client goes away. While
/// nothing is pending the connection is suspended in libmicrohttpd (no thread waits, no
/// busy loop); ``send(_:)`` resumes it. Sending never blocks: a client that does not read
/// is closed once more than ``maxBufferedBytes`` wait for it.
public final class StreamBody: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var closed = false
        /// Set while libmicrohttpd has the connection suspended, waiting for data.
        var suspended = false
        /// The connection's address, once the response is queued; nil after it ended.
        var connection: UInt?
        var ended = false
    }

    /// Bytes that may wait for a slow client before the stream is closed.
    public let maxBufferedBytes: Int
    private let state = Mutex(State())
    private let onEnd: Mutex<(@Sendable () -> Void)?>

    public init(maxBufferedBytes: Int = 64 << 10, onEnd: (@Sendable () -> Void)? = nil) {
        self.maxBufferedBytes = maxBufferedBytes
        self.onEnd = Mutex(onEnd)
    }

    /// Queues bytes for the client; returns false when the stream is closed or ended.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.closed, !state.ended else { return false }
            state.pending.append(contentsOf: bytes)
            if state.pending.count > maxBufferedBytes {
                state.closed = true
                state.pending = []
            }
            Self.wake(&state)
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

    private static func wake(_ state: inout State) {
        if state.suspended, let address = state.connection {
            state.suspended = false
            MHD_resume_connection(OpaquePointer(bitPattern: address))
        }
    }

    // MARK: - Called by the server

    func attach(_ connection: OpaquePointer) {
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
        state.withLock { $0.connection = address }
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
