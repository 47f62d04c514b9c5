import ListStore

/// What a change of a list's definition expects of the definition in force: HTTP `If-Match` /
/// `If-None-Match` on `…/definition`. Turned into a ``DefinitionExpectation`` on the stored
/// run-time definition under the writer's lock (where the config's definitions cannot change:
/// a reload takes that lock too), and checked by the store inside the change's commit.
public struct DefinitionCondition: Sendable, Equatable {
    /// A definition in force, as its entity tag names it.
    public enum Tag: Hashable, Sendable {
        /// The run-time definition at this revision.
        case runtime(revision: Int64)
        /// The config file's definition with this fingerprint (no run-time one laid over it).
        case config(fingerprint: UInt64)
    }

    /// A header's value: `*` (some definition is in force) or entity tags.
    public enum Match: Sendable, Equatable {
        case any
        case tags(Set<Tag>)
    }

    /// `If-Match`: the definition in force is one of these (or, `*`, there is one).
    public let ifMatch: Match?
    /// `If-None-Match`: the definition in force is none of these (or, `*`, there is none).
    public let ifNoneMatch: Match?

    public init(ifMatch: Match?, ifNoneMatch: Match?) {
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
    }

    /// The expectation on the stored run-time definition when the config's definition of the
    /// list has fingerprint `configured` (nil: the config has no such list). With no run-time
    /// definition stored, the config's is in force, or (nil) no list of that name is served.
    /// A stored run-time definition counts as in force even when this release could not read it
    /// at start (it is not served then): `*` holds of it, and a create-only change never
    /// overwrites it.
    func expectation(configured: UInt64?) -> DefinitionExpectation {
        var expectation = DefinitionExpectation.any
        switch ifMatch {
        case nil: break
        // Served either way when the config has the list (its definition or one laid over it).
        case .any: expectation = configured != nil ? .any : .noneOf([nil])
        case .tags(let tags): expectation = .oneOf(Self.states(tags, configured: configured))
        }
        switch ifNoneMatch {
        case nil: break
        case .any: expectation = expectation.and(configured != nil ? .oneOf([]) : .oneOf([nil]))
        case .tags(let tags): expectation = expectation.and(.noneOf(Self.states(tags, configured: configured)))
        }
        return expectation
    }

    /// The stored states in which one of `tags` is the definition in force.
    private static func states(_ tags: Set<Tag>, configured: UInt64?) -> Set<Int64?> {
        var states: Set<Int64?> = []
        for tag in tags {
            switch tag {
            case .runtime(let revision): states.insert(revision)
            case .config(let fingerprint): if fingerprint == configured { states.insert(nil) }
            }
        }
        return states
    }
}
