/// What a run-time definition change expects of the list's stored run-time definition: HTTP
/// `If-Match` / `If-None-Match` on `…/definition`, put in terms the store can check inside the
/// change's commit, while no other change — of this process or, on PostgreSQL, of any instance —
/// can come between (a read before the write could not tell that).
///
/// A state is the revision of the stored definition in force, or nil when none is (never
/// made, or removed: the config's definition, or none, is in force). The expectation is that the
/// state is one of `states` (`allows`), or none of them.
public struct DefinitionExpectation: Sendable, Equatable {
    /// The states named.
    public let states: Set<Int64?>
    /// Whether the named states are the ones that hold (else the ones that do not).
    public let allows: Bool

    /// Holds in one of `states` only.
    public static func oneOf(_ states: Set<Int64?>) -> DefinitionExpectation {
        DefinitionExpectation(states: states, allows: true)
    }

    /// Holds in every state but `states`.
    public static func noneOf(_ states: Set<Int64?>) -> DefinitionExpectation {
        DefinitionExpectation(states: states, allows: false)
    }

    /// Holds whatever is stored (an unconditional change).
    public static let any = noneOf([])

    /// Whether it holds with `revision` in force (nil: no run-time definition is).
    public func holds(_ revision: Int64?) -> Bool {
        states.contains(revision) == allows
    }

    /// Holds where both this and `other` hold (HTTP `If-Match` with `If-None-Match`).
    public func and(_ other: DefinitionExpectation) -> DefinitionExpectation {
        switch (allows, other.allows) {
        case (true, true): .oneOf(states.intersection(other.states))
        case (true, false): .oneOf(states.subtracting(other.states))
        case (false, true): .oneOf(other.states.subtracting(states))
        case (false, false): .noneOf(states.union(other.states))
        }
    }
}

/// What ``RecordStore/saveDefinition(list:json:expecting:deliveries:)`` did.
public enum DefinitionSave: Sendable, Equatable {
    /// Stored under the next change number; `replaced`: a run-time definition was in force just
    /// before (read in the commit).
    case saved(StoredDefinition, replaced: Bool)
    /// A removal with no run-time definition in force: nothing changed (checked before the
    /// expectation, as a `404` comes before a `412`).
    case nothingToRemove
    /// The expectation did not hold: nothing changed.
    case failed
}
