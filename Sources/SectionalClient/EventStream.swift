import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One connection to an event stream: the body's bytes as they arrive, through a data delegate
/// (so it works where `URLSession.bytes` does not). A non-200 answer ends it with its problem.
final class EventConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let continuation: AsyncThrowingStream<Data, Error>.Continuation
    /// The body's chunks; ends when the connection does.
    let chunks: AsyncThrowingStream<Data, Error>
    private var status = 0
    private var problemBody = Data()
    private var session: URLSession?
    private let lock = NSLock()
    private var retryAfterField: String?

    /// The answer's `Retry-After` field, if it had one (a 503's: when to try again).
    var retryAfter: String? { lock.withLock { retryAfterField } }

    /// Opens `request` with a session of `base`'s configuration (the client's: its proxy, added
    /// headers and protocol classes; a delegate of its own, not the client session's).
    init(request: URLRequest, base: URLSession) {
        let (chunks, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        self.chunks = chunks
        self.continuation = continuation
        super.init()
        let configuration = base.configuration.copy() as? URLSessionConfiguration ?? .default
        configuration.timeoutIntervalForRequest = 60   // keep-alive comments come every 15 s
        configuration.timeoutIntervalForResource = 7 * 24 * 3600   // a stream lasts: not the session's bound on a request
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        self.session = session
        continuation.onTermination = { _ in session.invalidateAndCancel() }
        session.dataTask(with: request).resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        status = http?.statusCode ?? 0
        lock.withLock { retryAfterField = http?.value(forHTTPHeaderField: "Retry-After") }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if status == 200 { continuation.yield(data) } else { problemBody.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if let error { continuation.finish(throwing: error) }
        else if status != 200 { continuation.finish(throwing: SectionalError.from(status: status, body: problemBody, retryAfter: retryAfter)) }
        else { continuation.finish() }
        session.finishTasksAndInvalidate()
    }
}

/// Reads Server-Sent Events out of a byte stream (the fields Sectional sends: id, event, data, retry).
struct EventParser {
    struct Event {
        var id: String?
        var name: String
        var data: String
    }
    private var buffer = Data()
    private var id: String?, name = "", data: [String] = []
    /// The last `retry:` value, in milliseconds.
    private(set) var retryMilliseconds: Int?

    /// The events completed by `chunk`.
    mutating func feed(_ chunk: Data) -> [Event] {
        buffer.append(chunk)
        var events: [Event] = []
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            var line = buffer[buffer.startIndex..<newline]
            buffer = Data(buffer[buffer.index(after: newline)...])
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let text = String(decoding: line, as: UTF8.self)
            if text.isEmpty {
                if !data.isEmpty { events.append(Event(id: id, name: name.isEmpty ? "message" : name, data: data.joined(separator: "\n"))) }
                name = ""
                data = []
                continue
            }
            if text.hasPrefix(":") { continue }
            let field: Substring, value: Substring
            if let colon = text.firstIndex(of: ":") {
                field = text[..<colon]
                let rest = text[text.index(after: colon)...]
                value = rest.hasPrefix(" ") ? rest.dropFirst() : rest
            } else {
                field = Substring(text)
                value = ""
            }
            switch field {
            case "id": id = String(value)
            case "event": name = String(value)
            case "data": data.append(String(value))
            // Only ASCII digits, as the event-stream format says (`-5` once made the delay negative,
            // and converting it to nanoseconds trapped).
            case "retry" where !value.isEmpty && value.allSatisfy({ $0.isASCII && $0.isNumber }):
                retryMilliseconds = Int(value) ?? retryMilliseconds
            default: break
            }
        }
        return events
    }
}

/// A list's versions from its event stream, reconnecting with `Last-Event-ID` when it drops (after
/// the server's `retry:`, backing off while it stays away, or after a 503's `Retry-After`).
public struct VersionEvents: AsyncSequence, Sendable {
    public typealias Element = VersionEvent
    let list: SectionalList
    let reconnectDelay: Double?

    /// Starts the first connection.
    public func makeAsyncIterator() -> AsyncThrowingStream<VersionEvent, Error>.Iterator {
        let list = self.list, fixedDelay = reconnectDelay
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: VersionEvent.self)
        let task = Task {
            var lastEventID: String?
            var retry = 2.0
            var failures = 0
            while !Task.isCancelled {
                var connection: EventConnection?
                do {
                    var request = try await list.client.request("GET", list.client.url(["v1", "lists", list.name, "events"], query: list.search.queryItems))
                    request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
                    if let lastEventID { request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID") }
                    let opened = EventConnection(request: request, base: list.client.session)
                    connection = opened
                    var parser = EventParser()
                    var first = true
                    for try await chunk in opened.chunks {
                        for event in parser.feed(chunk) where event.name == "version" {
                            if let id = event.id { lastEventID = id }
                            if var version = try? JSONDecoder().decode(VersionEvent.self, from: Data(event.data.utf8)) {
                                version.isFirstOnConnection = first
                                first = false
                                continuation.yield(version)
                            }
                        }
                        failures = 0
                        if let ms = parser.retryMilliseconds { retry = Double(ms) / 1000 }
                    }
                } catch let problem as SectionalError where !problem.serverAway {
                    continuation.finish(throwing: problem)
                    return
                } catch {
                    failures += 1
                }
                if Task.isCancelled { break }
                let delay = Self.reconnectDelay(retryAfter: connection?.retryAfter, fixed: fixedDelay, retry: retry, failures: failures)
                try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream.makeAsyncIterator()
    }

    /// Seconds to wait before reconnecting: what a 503's `Retry-After` says (seconds, or an HTTP
    /// date counted from `now`; from 1 s to 5 minutes: a proxy's `Retry-After: 0`, or a date a
    /// clock running ahead has passed, made reconnects back to back for as long as the 503s
    /// lasted) when it gave one; else `fixed` when set; else the server's `retry`, doubled per
    /// failure in a row while the server stays away (to 30 s). Never negative.
    static func reconnectDelay(retryAfter: String?, fixed: Double?, retry: Double, failures: Int, now: Date = Date()) -> Double {
        if let retryAfter, let seconds = retryAfterSeconds(retryAfter, now: now) { return Swift.min(Swift.max(seconds, 1), 300) }
        return Swift.max(0, Swift.min(fixed ?? retry * Double(1 << Swift.min(failures, 4)), 30))
    }

    /// A `Retry-After` field's seconds (RFC 9110: delay-seconds or an HTTP date), nil when it is neither.
    private static func retryAfterSeconds(_ field: String, now: Date) -> Double? {
        let text = field.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) { return Double(text) }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return format.date(from: text).map { Swift.max(0, $0.timeIntervalSince(now)) }
    }
}
