import Dispatch
import HTTPServer
import Synchronization

/// Server-Sent Events of list versions (SPEC §4.4): one stream per subscriber, fed off the
/// writer's path on a queue of its own, so a slow or vanished client never blocks a write.
/// (`@unchecked`: the only non-Sendable member is the keep-alive timer, set once in `init`.)
final class EventHub: @unchecked Sendable {
    static let keepAliveSeconds = 15

    private let streams = Mutex<[String: [ObjectIdentifier: StreamBody]]>([:])
    private let queue = DispatchQueue(label: "sectional.events")
    private let timer: DispatchSourceTimer

    init() {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .seconds(Self.keepAliveSeconds), repeating: .seconds(Self.keepAliveSeconds))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let comment = Array(": keep-alive\n\n".utf8)
            for stream in allStreams() { stream.send(comment) }
        }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// A new stream for `list`. It starts with the current version as an event, so a client
    /// cannot miss a write made between its last read and the stream opening — unless its
    /// `Last-Event-ID` says it already has that version.
    func subscribe(list: String, current: Int64, lastEventID: Int64?) -> StreamBody {
        let key = Mutex<ObjectIdentifier?>(nil)
        let stream = StreamBody(maxBufferedBytes: 64 << 10, onEnd: { [weak self] in
            guard let self, let id = key.withLock({ $0 }) else { return }
            streams.withLock { all in
                all[list]?.removeValue(forKey: id)
                if all[list]?.isEmpty == true { all.removeValue(forKey: list) }
            }
        })
        key.withLock { $0 = ObjectIdentifier(stream) }
        var greeting = "retry: 2000\n: connected\n\n"
        if lastEventID.map({ $0 < current }) ?? true { greeting += Self.event(list: list, version: current) }
        stream.send(Array(greeting.utf8))
        streams.withLock { $0[list, default: [:]][ObjectIdentifier(stream)] = stream }
        return stream
    }

    /// Tells every subscriber of each list its new version (returns at once).
    func publish(_ versions: [(list: String, version: Int64)]) {
        queue.async { [weak self] in
            guard let self else { return }
            for (list, version) in versions {
                let subscribers = streams.withLock { $0[list].map { Array($0.values) } ?? [] }
                guard !subscribers.isEmpty else { continue }
                let bytes = Array(Self.event(list: list, version: version).utf8)
                for stream in subscribers { stream.send(bytes) }
            }
        }
    }

    /// Open streams, all lists together.
    var count: Int { streams.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Ends every stream (at shutdown).
    func closeAll() {
        allStreams().forEach { $0.close() }
    }

    private func allStreams() -> [StreamBody] {
        streams.withLock { $0.values.flatMap(\.values) }
    }

    static func event(list: String, version: Int64) -> String {
        "id: \(version)\nevent: version\ndata: {\"list\":\(JSONText.quote(list)),\"version\":\(version)}\n\n"
    }
}
