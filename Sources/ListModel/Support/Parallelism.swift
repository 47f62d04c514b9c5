import Locking

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
    public func map<T: Sendable>(_ parts: Int, _ body: @Sendable (Int) -> T) -> [T] {
        guard parts > 1 else { return parts == 1 ? [body(0)] : [] }
        let results = Locked([T?](repeating: nil, count: parts))
        run(parts) { part in
            let value = body(part)
            results.withLock { $0[part] = value }
        }
        return results.withLock { $0.map { $0! } }
    }

    /// `body(i, &item)` for each of `items`, one part each, the part holding the item's only
    /// reference: an array it changes is changed in place (a second reference would make it
    /// copy first), and what it lets go of is freed on its thread.
    public func map<T: Sendable, U: Sendable>(taking items: consuming [T], _ body: @Sendable (Int, inout T) -> U) -> [U] {
        let pending = Locked(items.map { Optional($0) })
        let count = items.count
        items = []
        return map(count) { i in
            var item = pending.withLock { all in
                defer { all[i] = nil }
                return all[i]!
            }
            return body(i, &item)
        }
    }
}
