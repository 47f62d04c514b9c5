import COpenSSL
import Dispatch
import Foundation
import Locking
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A webhook receiver for tests: a plain HTTP/1.1 server on 127.0.0.1 (one connection at a
/// time, on a thread of its own) that records every request and checks its signature itself
/// with libcrypto's HMAC, independently of the server's code. It answers `status` (204 by
/// default) and can hold requests unanswered until let go.
final class WebhookReceiver: @unchecked Sendable {
    struct Delivery {
        let target: String
        /// Header names in lower case.
        let headers: [String: String]
        let body: [UInt8]
        /// Whether `Sectional-Signature` is `sha256=` and the hex HMAC-SHA-256 of the body.
        let signatureValid: Bool

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        }
        var version: Int? { json["version"] as? Int }
    }

    private struct State {
        var deliveries: [Delivery] = []
        var status = 204
        /// When not empty, answers in turn (cycling), instead of `status`.
        var turns: [Int] = []
        var answered = 0
        var holding = false
    }

    private let secret: [UInt8]
    private var listener: LoopbackListener?
    private let state = Locked(State())
    private let release = DispatchSemaphore(value: 0)

    /// Listens on `port` (0: any free port) with the secret deliveries are checked against.
    init(secret: String, port: Int = 0) throws {
        self.secret = Array(secret.utf8)
        // Serves until stopped: the accepting thread holds the receiver until ``stop()``.
        listener = try LoopbackListener(port: port) { [self] connection in
            serve(connection)
            close(connection)
        }
    }

    /// The port it listens on.
    var port: Int { listener?.port ?? 0 }

    /// Stops listening (connections are then refused) and waits for the thread.
    func stop() {
        letGo()
        listener?.stop()
    }

    /// The URL deliveries go to.
    var url: String { "http://127.0.0.1:\(port)/hooks/sectional?from=test" }

    var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    /// Answers later requests with `status`.
    func answer(_ status: Int) { state.withLock { $0.status = status } }

    /// Answers later requests with `statuses` in turn, over and over.
    func answerInTurn(_ statuses: [Int]) { state.withLock { $0.turns = statuses } }

    /// Holds later requests unanswered (after recording them) until ``letGo()``.
    func hold() { state.withLock { $0.holding = true } }

    func letGo() {
        let held = state.withLock { state -> Bool in
            defer { state.holding = false }
            return state.holding
        }
        if held { release.signal() }
    }

    private func serve(_ connection: Int32) {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var headEnd: Int?
        var contentLength = 0
        while true {
            if headEnd == nil, let end = find([13, 10, 13, 10], in: buffer) {
                headEnd = end + 4
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                for line in head.split(separator: "\r\n").dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        contentLength = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
            }
            if let headEnd, buffer.count >= headEnd + contentLength { break }
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            buffer += chunk[0..<count]
        }
        guard let headEnd else { return }
        let head = String(decoding: buffer[..<(headEnd - 4)], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        let body = Array(buffer[headEnd..<(headEnd + contentLength)])
        let valid = requestLine.first == "POST" && headers["sectional-signature"] == "sha256=" + hex(hmac(body))
        let delivery = Delivery(target: requestLine.count > 1 ? String(requestLine[1]) : "", headers: headers, body: body, signatureValid: valid)
        let (status, holding) = state.withLock { state -> (Int, Bool) in
            state.deliveries.append(delivery)
            defer { state.answered += 1 }
            return (state.turns.isEmpty ? state.status : state.turns[state.answered % state.turns.count], state.holding)
        }
        if holding { release.wait() }
        let answer = Array("HTTP/1.1 \(status) Answer\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// HMAC-SHA-256 of `body` under the secret, by libcrypto.
    private func hmac(_ body: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        secret.withUnsafeBufferPointer { key in
            body.withUnsafeBufferPointer { message in
                digest.withUnsafeMutableBufferPointer { output in
                    _ = HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count, output.baseAddress, &length)
                }
            }
        }
        return Array(digest.prefix(Int(length)))
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for index in 0...(bytes.count - pattern.count) where Array(bytes[index..<(index + pattern.count)]) == pattern { return index }
        return nil
    }
}
