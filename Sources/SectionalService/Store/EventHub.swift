import Dispatch
import Foundation
import HTTPServer
import ListModel
import Locking

/// Server-Sent Events of list versions: one stream per subscriber, fed off the writer's path on
/// a queue of its own, so a slow or vanished client never blocks a write. At most `maxStreams`
/// are open at once, so streams cannot take every connection.
/// (`@unchecked`: the only non-Sendable member is the keep-alive timer, set once in `init`.)
final class EventHub: @unchecked Sendable {
    static let keepAliveSeconds = 15
    /// Milliseconds a client waits before reconnecting (the `retry:` line of every stream).
    static let retryMilliseconds = 2000

    private struct Streams {
        /// Streams by name (a list's, or a list and user partition's), each with the last
        /// version it was told, so no stream hears a version twice or out of order, and when it
        /// ends (seconds since 1970: its user token's last accepted moment), if it does.
        /// `withheld`: the last version not sent because the client's `Last-Event-ID` claimed it,
        /// before ``tell(_:stream:list:version:clientAhead:)`` has checked that claim.
        var byList: [CodePointKey: [ObjectIdentifier: (stream: StreamBody, told: Int64, until: Double?, withheld: Int64)]] = [:]
        var count = 0
        var refused: UInt64 = 0
        /// Set by ``closeAll()``: no stream opens after it.
        var closed = false
    }

    /// Why ``subscribe(stream:list:lastEventID:current:)`` opened no stream.
    enum Refusal: Error {
        /// `maxStreams` are open already.
        case full
        /// The server is stopping (``closeAll()`` has run).
        case closed
    }

    let maxStreams: Int
    private let streams = Locked(Streams())
    private let queue = DispatchQueue(label: "sectional.events")
    private let timer: DispatchSourceTimer

    init(maxStreams: Int) {
        self.maxStreams = maxStreams
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .seconds(Self.keepAliveSeconds), repeating: .seconds(Self.keepAliveSeconds))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let (open, expired) = streamsAndExpired(now: Date().timeIntervalSince1970)
            let comment = Array(": keep-alive\n\n".utf8)
            for stream in open { stream.send(comment) }
            // The comment also wakes the suspended connection: a close alone, on a stream with
            // nothing pending, did not end it within 20 s under libmicrohttpd 0.9.75 (measured).
            let last = Array(": token expired\n\n".utf8)
            for stream in expired {
                stream.send(last)
                stream.close()
            }
        }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// A new stream of `list`'s versions (filed under `stream`: the list, or the list and the
    /// user's partition); refused when `maxStreams` are open already, or once ``closeAll()`` has
    /// run (a kept-alive connection may still ask while the server stops). It starts with a `retry:`
    /// line and then the list's version as an event, so a client cannot miss a write made between
    /// its last read and the stream opening — unless its `Last-Event-ID` says it already has
    /// that version.
    ///
    /// `until`: when the stream ends (its user token's last accepted moment), at the keep-alive
    /// tick after it, with a last comment `: token expired`; nil: it does not run out.
    ///
    /// `current` reads the list's version, and is called once the stream is registered: a write
    /// published before that read is in what it returns, and one published after it finds the
    /// stream. (Read before, by the route, a write published in between reached neither: the
    /// stream waited for the next write, seen as a test waiting 20 s under `make test`.)
    func subscribe(stream name: String, list: String, lastEventID: Int64?, until: Date? = nil,
                   current: () -> Int64) throws(Refusal) -> StreamBody {
        let key = Locked<ObjectIdentifier?>(nil)
        let stream = StreamBody(maxBufferedBytes: 64 << 10, onEnd: { [weak self] in
            guard let self, let id = key.withLock({ $0 }) else { return }
            streams.withLock { all in
                guard all.byList[CodePointKey(name)]?.removeValue(forKey: id) != nil else { return }
                all.count -= 1
                if all.byList[CodePointKey(name)]?.isEmpty == true { all.byList.removeValue(forKey: CodePointKey(name)) }
            }
        })
        key.withLock { $0 = ObjectIdentifier(stream) }
        let refusal = streams.withLock { all -> Refusal? in
            guard !all.closed else { return .closed }
            guard all.count < maxStreams else {
                all.refused += 1
                return .full
            }
            stream.send(Array("retry: \(Self.retryMilliseconds)\n: connected\n\n".utf8))
            all.byList[CodePointKey(name), default: [:]][ObjectIdentifier(stream)] = (stream, lastEventID ?? .min, until?.timeIntervalSince1970, .min)
            all.count += 1
            return nil
        }
        if let refusal { throw refusal }
        tell(stream, stream: name, list: list, version: current(), clientAhead: lastEventID)
        return stream
    }

    /// Tells `stream` (filed under `name`) of `version` unless it has been told it or a later
    /// one. Sent under the lock, so a publish cannot overtake it.
    ///
    /// `clientAhead`: the client's `Last-Event-ID`. One past `version` was never this server's
    /// (a new database at its address, one put back by a file copy): it is taken as unknown, so the
    /// client hears the current version and every one after it, not nothing until the list's
    /// version passes the one it names — nor misses one a publish withheld for that claim
    /// between the stream's registration and this.
    private func tell(_ stream: StreamBody, stream name: String, list: String, version: Int64, clientAhead: Int64? = nil) {
        streams.withLock { all in
            let id = ObjectIdentifier(stream)
            var version = version
            if let claimed = clientAhead, claimed > version, let entry = all.byList[CodePointKey(name)]?[id], entry.told == claimed {
                all.byList[CodePointKey(name)]![id]!.told = .min
                version = max(version, entry.withheld)
            }
            guard let told = all.byList[CodePointKey(name)]?[id]?.told, told < version else { return }
            all.byList[CodePointKey(name)]![id]!.told = version
            stream.send(Array(Self.event(list: list, version: version).utf8))
        }
    }

    /// Tells every subscriber of each stream its new version (returns at once). An event that
    /// ``VersionEvent/endsStreams`` (a definition change) is told to every stream of its list,
    /// its users' included, which then end: what a stream follows — its user's partition, whether
    /// it may read the list at all, whether the list still exists — is decided when it opens, so
    /// after a change the client opens it again (an `EventSource` does so by itself after the
    /// `retry:` wait) and is answered by the new definition.
    func publish(_ events: [VersionEvent]) {
        // Nothing to tell when no stream follows these lists: no block, no thread woken (a wake
        // a commit was 3.3% of the writer thread's samples under `make bench-service`'s mixed
        // reads and writes; see ``Reaper``). A stream registered after this look finds the
        // version by `subscribe`'s own read, which follows the publication this event announces.
        guard streams.withLock({ all in events.contains { Self.hasStreams(for: $0, in: all) } }) else { return }
        queue.async { [weak self] in
            guard let self else { return }
            for event in events {
                let (subscribers, ending) = streams.withLock { all -> ([StreamBody], [StreamBody]) in
                    var due: [StreamBody] = [], ending: [StreamBody] = []
                    for name in Self.names(of: event, in: all) {
                        guard var streams = all.byList[name] else { continue }
                        for (id, subscriber) in streams {
                            if subscriber.told < event.version {
                                due.append(subscriber.stream)
                                streams[id]!.told = event.version
                            } else {
                                streams[id]!.withheld = max(subscriber.withheld, event.version)
                            }
                            if event.endsStreams { ending.append(subscriber.stream) }
                        }
                        if event.endsStreams {
                            all.byList.removeValue(forKey: name)
                            all.count -= streams.count
                        } else {
                            all.byList[name] = streams
                        }
                    }
                    return (due, ending)
                }
                if !subscribers.isEmpty {
                    let bytes = Array(Self.event(list: event.list, version: event.version).utf8)
                    for stream in subscribers { stream.send(bytes) }
                }
                ending.forEach { $0.close() }
            }
        }
    }

    /// The names of the open streams `event` is for: its own, or for one that ends streams, the
    /// list's and each of its users' (`list` U+001F `user`, ``MaterializationKey/streamName``).
    private static func names(of event: VersionEvent, in all: Streams) -> [CodePointKey] {
        guard event.endsStreams else {
            return all.byList[CodePointKey(event.stream)] == nil ? [] : [CodePointKey(event.stream)]
        }
        return all.byList.keys.filter { isStream($0, of: event.list) }
    }

    /// Whether any stream is open that `event` is for (on every commit's path: no array made).
    private static func hasStreams(for event: VersionEvent, in all: Streams) -> Bool {
        guard event.endsStreams else { return all.byList[CodePointKey(event.stream)] != nil }
        return all.byList.keys.contains { isStream($0, of: event.list) }
    }

    /// Whether the stream named `name` is list `list`'s or one of its users'.
    private static func isStream(_ name: CodePointKey, of list: String) -> Bool {
        name == CodePointKey(list) || name.string.utf8.starts(with: (list + "\u{1F}").utf8)
    }

    /// Open streams, all lists together.
    var count: Int { streams.withLock { $0.count } }

    /// Streams refused because `maxStreams` were open.
    var refused: UInt64 { streams.withLock { $0.refused } }

    /// Ends every stream and refuses new ones (at shutdown).
    func closeAll() {
        let open = streams.withLock { all in
            all.closed = true
            return all.byList.values.flatMap { $0.values.map(\.stream) }
        }
        open.forEach { $0.close() }
    }

    /// The open streams, and those whose end (`until`) has passed at `now`, taken out of the
    /// count (they are closed next).
    private func streamsAndExpired(now: Double) -> (open: [StreamBody], expired: [StreamBody]) {
        streams.withLock { all in
            var open: [StreamBody] = [], expired: [StreamBody] = []
            for (name, streams) in all.byList {
                for (id, entry) in streams {
                    guard let until = entry.until, until < now else {
                        open.append(entry.stream)
                        continue
                    }
                    expired.append(entry.stream)
                    all.byList[name]![id] = nil
                    all.count -= 1
                }
                if all.byList[name]!.isEmpty { all.byList[name] = nil }
            }
            return (open, expired)
        }
    }

    static func event(list: String, version: Int64) -> String {
        "id: \(version)\nevent: version\ndata: {\"list\":\(JSONWriter.quoted(list)),\"version\":\(version)}\n\n"
    }
}
