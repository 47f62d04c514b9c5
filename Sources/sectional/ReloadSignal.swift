import Dispatch
import Foundation

/// `SIGHUP`: calls `reload` each time the signal arrives (the config file's lists are re-read).
final class ReloadSignal {
    private let source: DispatchSourceSignal

    init(_ reload: @escaping @Sendable () -> Void) {
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler(handler: reload)
        source.resume()
    }

    deinit { source.cancel() }
}
