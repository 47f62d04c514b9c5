import Synchronization

/// How a build may spread independent work over threads. `ListModel` starts no threads itself:
/// the caller hands in a runner that calls `body(0)` … `body(parts - 1)`, each exactly once, and
/// returns when all have returned — one after another (``serial``), or several at once (the
/// service passes `DispatchQueue.concurrentPerform`). Each part touches only its own data, so
/// the result is the same either way.
public struct Parallelism: Sendable {
    private let run: @Sendable (_ parts: Int, _ body: @Sendable (Int) -> Void) -> Void

    /// A runner; `run(parts, body)` must call `body` once for each of `0..<parts` and return
    /// only when every call has returned.
    public init(_ run: @escaping @Sendable (_ parts: Int, _ body: @Sendable (Int) -> Void) -> Void) { self.run = run }

    /// One part after another on the calling thread.
    public static let serial = Parallelism { parts, body in
        for part in 0..<parts { body(part) }
    }

    /// `body(part)` for each part, in part order, computed as the runner schedules them.
    func map<T: Sendable>(_ parts: Int, _ body: @Sendable (Int) -> T) -> [T] {
        guard parts > 1 else { return parts == 1 ? [body(0)] : [] }
        let results = Mutex([T?](repeating: nil, count: parts))
        run(parts) { part in
            let value = body(part)
            results.withLock { $0[part] = value }
        }
        return results.withLock { $0.map { $0! } }
    }
}
