import Dispatch
import HTTPServer
import ListModel

extension Parallelism {
    /// Every core, through `DispatchQueue.concurrentPerform`: for builds of whole lists (at
    /// start-up, for a run-time definition, for a language), which no reader waits on part of.
    /// Each part first frees its thread from a server thread's core (``ThreadPinning``).
    static let cores = Parallelism { parts, body in
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            ThreadPinning.freeCallingThread()
            body(part)
        }
    }
}
