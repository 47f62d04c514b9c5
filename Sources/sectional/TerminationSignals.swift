import Dispatch
import Foundation

/// SIGINT and SIGTERM, caught from the moment this is made (so a signal during start-up is
/// not lost), and waited for with ``wait()``.
final class TerminationSignals {
    private let received = DispatchSemaphore(value: 0)
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [received] in received.signal() }
            source.resume()
            sources.append(source)
        }
    }

    /// Blocks until SIGINT or SIGTERM arrives.
    func wait() {
        received.wait()
        sources.forEach { $0.cancel() }
    }
}
