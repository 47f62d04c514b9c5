import Dispatch

/// Notices promptly that the client of an idle stream has gone.
///
/// libmicrohttpd does not watch the socket of a suspended connection, so a client that vanished
/// while its stream idled would keep its connection (and its place among the streams) until the
/// next bytes are sent, which for event streams is the next keep-alive. Every quarter second the
/// watchdog looks at each idle stream's socket and ends the streams whose client has hung up.
final class StreamWatchdog: @unchecked Sendable {
    static let intervalMilliseconds = 250
    private let queue = DispatchQueue(label: "httpserver.stream-watchdog")
    private static let onQueue = DispatchSpecificKey<Bool>()
    /// Set once in `init` (hence `@unchecked`).
    private let timer: DispatchSourceTimer

    /// Starts watching the streams `streams()` lists at each tick.
    init(streams: @escaping @Sendable () -> [StreamBody]) {
        queue.setSpecific(key: Self.onQueue, value: true)
        timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = DispatchTimeInterval.milliseconds(Self.intervalMilliseconds)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
        timer.setEventHandler {
            for stream in streams() { stream.endIfClientGone() }
        }
        timer.resume()
    }

    /// Stops watching; returns once no check is running (unless called from a check itself).
    func stop() {
        timer.cancel()
        if DispatchQueue.getSpecific(key: Self.onQueue) != true { queue.sync {} }
    }
}
