#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client for webhook deliveries: one `POST` per connection
/// (`Connection: close`) over a POSIX socket, `http://` only, whole exchange bounded by a
/// timeout. It reads the answer's status line and nothing more: a receiver is judged by its
/// status code alone. Interim answers (`1xx`, such as an unasked-for `100 Continue`) are read
/// past to the final one (RFC 9110 §15.2).
enum HTTPPoster {
    /// Why a delivery got no status code.
    struct Failure: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    /// Sends `body` to `url` with `headers` and returns the answer's status code. `stopping` is
    /// asked at least every ``stopCheckMilliseconds`` while it waits: when it says so the
    /// exchange is given up (a graceful stop waits for no receiver). The host's name is looked up
    /// with `lookup` within the same bounds (see ``HostLookup``).
    static func post(_ body: [UInt8], to url: WebhookURL, headers: [(String, String)], timeoutSeconds: Double,
                     stopping: @escaping () -> Bool = { false },
                     lookup: HostLookup = .system) -> Result<Int, Failure> {
        let deadline = Deadline(at: ContinuousClock.now + .milliseconds(Int64(timeoutSeconds * 1000)), stopping: stopping)
        var head = "POST \(url.target) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUser-Agent: sectional\r\n"
        head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8) + body
        let fd: Int32
        switch connect(to: url, deadline: deadline, lookup: lookup) {
        case .success(let socket): fd = socket
        case .failure(let failure): return .failure(failure)
        }
        defer { close(fd) }
        var sent = 0
        while sent < request.count {
            guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return .failure(deadline.failure("timed out sending")) }
            let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count > 0 else { return .failure(Failure(description: "send failed: \(describe(errno))")) }
            sent += count
        }
        var answer: [UInt8] = []
        while true {
            while !answer.contains(0x0A) {
                if let failure = receive(into: &answer, from: fd, until: deadline) { return .failure(failure) }
            }
            guard let code = statusCode(answer) else { return .failure(Failure(description: "the answer is not HTTP")) }
            guard code < 200 else { return .success(code) }
            // An interim answer: its head ends at an empty line; the final one follows.
            while true {
                if let end = headEnd(answer) {
                    answer.removeFirst(end)
                    break
                }
                if let failure = receive(into: &answer, from: fd, until: deadline) { return .failure(failure) }
            }
        }
    }

    /// Reads what `fd` has next onto `answer` (at most 8 KiB in all); why it could not, or nil.
    private static func receive(into answer: inout [UInt8], from fd: Int32, until deadline: Deadline) -> Failure? {
        var chunk = [UInt8](repeating: 0, count: 1024)
        while true {
            guard answer.count < 8192 else { return Failure(description: "the answer's head is too long") }
            guard wait(fd, for: Int16(POLLIN), until: deadline) else { return deadline.failure("timed out waiting for the answer") }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count > 0 else {
                return Failure(description: count == 0 ? "connection closed before an answer" : "receive failed: \(describe(errno))")
            }
            answer += chunk[0..<count]
            return nil
        }
    }

    /// Where a head that starts `answer` ends (past its empty line, CRLF or bare LF), or nil.
    static func headEnd(_ answer: [UInt8]) -> Int? {
        var index = 0
        while let newline = answer[index...].firstIndex(of: 0x0A) {
            let next = newline + 1
            if next < answer.count, answer[next] == 0x0A { return next + 1 }
            if next + 1 < answer.count, answer[next] == 0x0D, answer[next + 1] == 0x0A { return next + 2 }
            index = next
        }
        return nil
    }

    /// The status code of an answer's first line (`HTTP/1.1 204 No Content`).
    static func statusCode(_ answer: [UInt8]) -> Int? {
        let line = String(decoding: answer.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let code = Int(parts[1]), (100...599).contains(code) else {
            return nil
        }
        return code
    }

    /// A non-blocking socket connected to one of `url`'s host's addresses, tried in order, each
    /// for a share of the time left (the time left over the addresses left, at least
    /// ``connectShareMilliseconds``): an address that does not answer (an IPv6 route that drops
    /// packets, listed first) no longer takes the whole timeout from the ones after it.
    private static func connect(to url: WebhookURL, deadline: Deadline, lookup: HostLookup) -> Result<Int32, Failure> {
        let addresses: [HostAddress]
        switch lookup.addresses(of: url.host, port: url.port, until: deadline) {
        case .success(let found): addresses = found
        case .failure(let failure): return .failure(failure)
        }
        var lastError = "no address"
        for (index, address) in addresses.enumerated() {
            let share = max(deadline.millisecondsLeft / Int64(addresses.count - index), connectShareMilliseconds)
            let attempt = deadline.earlier(than: .now + .milliseconds(share))
            let fd = socket(address.family, address.socketType, address.socketProtocol)
            guard fd >= 0 else {
                lastError = describe(errno)
                continue
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let connected = address.bytes.withUnsafeBytes {
                Glibc.connect(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
            }
            if connected == 0 { return .success(fd) }
            if errno == EINPROGRESS, wait(fd, for: Int16(POLLOUT), until: attempt) {
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 { return .success(fd) }
                lastError = describe(error)
            } else {
                lastError = errno == EINPROGRESS ? attempt.failure("timed out connecting").description : describe(errno)
            }
            close(fd)
        }
        return .failure(Failure(description: "cannot connect to \(url.hostHeader): \(lastError)"))
    }

    /// How often a wait asks whether the server is stopping.
    static let stopCheckMilliseconds: Int64 = 100
    /// The least time a connection attempt to one of several addresses is given.
    static let connectShareMilliseconds: Int64 = 250

    /// When an exchange ends: its timeout, or earlier when the server stops.
    struct Deadline {
        let at: ContinuousClock.Instant
        let stopping: () -> Bool

        /// Why a wait ended without the socket ready: `timeout`, or the stop.
        func failure(_ timeout: String) -> Failure { Failure(description: stopping() ? "given up: the server is stopping" : timeout) }

        /// This deadline, or `instant` when that comes first.
        func earlier(than instant: ContinuousClock.Instant) -> Deadline { Deadline(at: min(at, instant), stopping: stopping) }

        /// Whole milliseconds until ``at`` (0 or less once it has passed).
        var millisecondsLeft: Int64 {
            let left = at - ContinuousClock.now
            return left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
        }
    }

    /// Waits until `fd` is ready for `events`, the deadline passes or the server stops; false
    /// unless ready.
    private static func wait(_ fd: Int32, for events: Int16, until deadline: Deadline) -> Bool {
        while !deadline.stopping() {
            let milliseconds = deadline.millisecondsLeft
            guard milliseconds > 0 else { return false }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(milliseconds, stopCheckMilliseconds)))
            if ready > 0 { return true }
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { continue }
            return false
        }
        return false
    }

    private static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
