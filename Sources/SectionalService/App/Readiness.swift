import Synchronization

/// Where the server is in its life: starting (loading data), ready, or draining (stopping).
public final class Readiness: Sendable {
    public enum Phase: Int, Sendable {
        case starting, ready, draining
        var name: String { ["starting", "ready", "draining"][rawValue] }
    }

    private let value = Atomic<Int>(Phase.starting.rawValue)

    public init() {}

    public var phase: Phase { Phase(rawValue: value.load(ordering: .acquiring))! }

    func set(_ phase: Phase) { value.store(phase.rawValue, ordering: .releasing) }
}
