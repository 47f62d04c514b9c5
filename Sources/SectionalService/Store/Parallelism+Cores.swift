import Dispatch
import ListModel

extension Parallelism {
    /// Every core, through `DispatchQueue.concurrentPerform`: for builds of whole lists (at
    /// start-up, for a run-time definition, for a language), which no reader waits on part of.
    static let cores = Parallelism { parts, body in
        DispatchQueue.concurrentPerform(iterations: parts, execute: body)
    }
}
