import Dispatch
import Foundation

/// `SIGHUP`, caught from the moment this is made (before the config is read): each signal runs
/// the reload given to ``start(_:)`` (the config file's lists are re-read). Signals that come
/// before it — while the config loads, which takes a second for a large one — are remembered and
/// run it once then: the file may have been edited after it was read.
final class ReloadSignal: @unchecked Sendable {
    private let source: DispatchSourceSignal
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var reload: (@Sendable () -> Void)?
    private var missed = false

    init() {
        signal(SIGHUP, SIG_IGN)  // the default action would end the process
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        // Strongly: a signal handled while this goes away (the server stopping) must not find it
        // freed; it is one object for the life of the process.
        source.setEventHandler { [self] in
            let action = lock.withLock { () -> (@Sendable () -> Void)? in
                if reload == nil { missed = true }
                return reload
            }
            action?()
        }
        source.resume()
    }

    /// Runs `reload` on every signal from now on, and now when one came before.
    func start(_ reload: @escaping @Sendable () -> Void) {
        let missed = lock.withLock { () -> Bool in
            self.reload = reload
            defer { self.missed = false }
            return self.missed
        }
        if missed { reload() }
    }

    deinit { source.cancel() }
}
