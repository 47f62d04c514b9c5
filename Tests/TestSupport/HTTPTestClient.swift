import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A raw HTTP/1.1 client over one TCP socket, so tests see exactly what crosses the wire
/// (keep-alive, headers, chunked uploads). Blocking, with a receive timeout.
public final class HTTPTestClient {
    public struct Answer {
        public let status: Int
        public let headers: [(String, String)]
        public let body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    public struct Failure: Error, CustomStringConvertible { public let description: String }

    public let fd: Int32
    private var buffer: [UInt8] = []

    /// How long a read waits for the server: 10 s, or `SECTIONAL_TEST_TIMEOUT_SECONDS` (the
    /// sanitizer runs set it, since an instrumented server answers a big request many times slower).
    public static let defaultTimeoutSeconds = ProcessInfo.processInfo.environment["SECTIONAL_TEST_TIMEOUT_SECONDS"].flatMap { Int($0) } ?? 10

    /// Connects to 127.0.0.1:`port`.
    /// - Parameters:
    ///   - source: the local address to connect from, e.g. `127.0.0.2` to be another client
    ///     (all of 127.0.0.0/8 is loopback on Linux).
    ///   - receiveBufferBytes: `SO_RCVBUF`, set before connecting so the TCP window stays small.
    public init(port: Int, timeoutSeconds: Int = HTTPTestClient.defaultTimeoutSeconds, from source: String? = nil,
                receiveBufferBytes: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBufferBytes {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            let bound = withIPv4Address(source) { bind(fd, $0, $1) }
            guard bound == 0 else {
                throw Failure(description: "bind to \(source) failed: errno \(errno)")
            }
        }
        let result = withIPv4Address("127.0.0.1", port: port) { connect(fd, $0, $1) }
        guard result == 0 else {
            throw Failure(description: "connect failed: errno \(errno)")
        }
    }

    /// The one place the socket is closed. It also runs when `init` throws (the object is whole by
    /// then), so closing there as well would close the descriptor twice — and the second close
    /// could hit another socket that reused the number meanwhile (a server's listening socket:
    /// libmicrohttpd then aborts with "Failed to remove listen FD from epoll set").
    deinit { close(fd) }

    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            sent += n
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends one request and reads its answer.
    public func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil) throws -> Answer {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        try send(Array((head + "\r\n").utf8) + (body ?? []))
        return try readAnswer(bodyExpected: method != "HEAD")
    }

    /// Reads one answer (Content-Length framed, as the server sends).
    public func readAnswer(bodyExpected: Bool = true) throws -> Answer {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = find([13, 10, 13, 10])
            if headEnd == nil { try fill() }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(description: "bad status line") }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        // 1xx, 204 and 304 have no content whatever their Content-Length says (RFC 9112 §6.3).
        let hasContent = bodyExpected && !(100..<200).contains(status) && status != 204 && status != 304
        let length = hasContent ? Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0 : 0
        while buffer.count < length { try fill() }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return Answer(status: status, headers: headers, body: body)
    }

    /// Reads raw bytes until `marker` has arrived; returns everything read so far (and keeps nothing).
    public func readUntil(_ marker: String) throws -> String {
        let pattern = Array(marker.utf8)
        while find(pattern) == nil { try fill() }
        let text = String(decoding: buffer, as: UTF8.self)
        buffer = []
        return text
    }

    /// Reads until the server closes the connection; returns everything read (throws on time-out).
    public func readUntilClosed() throws -> String {
        while true {
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n == 0 || (n < 0 && errno == ECONNRESET) { break }
            guard n > 0 else { throw Failure(description: "recv failed: errno \(errno) after \(buffer.count) bytes") }
            buffer.append(contentsOf: chunk[..<n])
        }
        let text = String(decoding: buffer, as: UTF8.self)
        buffer = []
        return text
    }

    /// True when the server has sent something not yet read (or closed its side), now.
    public func hasSomethingToRead() -> Bool {
        guard buffer.isEmpty else { return true }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    /// True when the server has closed its side (read returns 0 or the connection was reset).
    public func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, 0)
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }

    /// True when the server closes its side within `milliseconds` (a byte it sends meanwhile is
    /// kept for the next read).
    public func isClosedByPeer(within milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, milliseconds) > 0 else { return false }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
        if n == 1 { buffer.append(byte) }
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let n = recv(fd, &chunk, chunk.count, 0)
        guard n > 0 else { throw Failure(description: n == 0 ? "connection closed by server" : "recv failed: errno \(errno)") }
        buffer.append(contentsOf: chunk[..<n])
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for i in 0...(buffer.count - pattern.count) where buffer[i] == pattern[0] {
            if Array(buffer[i..<(i + pattern.count)]) == pattern { return i }
        }
        return nil
    }
}

/// Polls `condition` until it holds or `seconds` pass; returns whether it held.
public func eventually(within seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

/// A thread-safe counter that closures can capture.
public final class Counter: Sendable {
    public init() {}
    private let count = Atomic<Int>(0)
    public func increment() { count.add(1, ordering: .relaxed) }
    public var value: Int { count.load(ordering: .relaxed) }
}
