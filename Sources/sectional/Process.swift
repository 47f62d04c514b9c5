import Dispatch
import Foundation

/// Blocks until SIGINT or SIGTERM arrives.
func waitForTerminationSignal() {
    let done = DispatchSemaphore(value: 0)
    var sources: [DispatchSourceSignal] = []
    for number in [SIGINT, SIGTERM] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { done.signal() }
        source.resume()
        sources.append(source)
    }
    done.wait()
    sources.forEach { $0.cancel() }
}

