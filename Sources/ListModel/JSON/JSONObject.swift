/// A JSON object: members in the order they were given (or parsed).
///
/// Member names are unique (the parser rejects duplicates; ``subscript(_:)`` replaces).
/// Look-up is a linear scan, which beats hashing for the small objects records are; equality
/// ignores member order.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection {
    /// A member: name and value.
    public typealias Member = (key: String, value: JSONValue)

    /// The members in order.
    public private(set) var members: [Member]

    /// An empty object.
    public init() { members = [] }

    /// An object from members; a later duplicate name replaces the earlier value in place.
    public init(_ members: [Member]) {
        self.members = []
        self.members.reserveCapacity(members.count)
        for m in members { self[m.key] = m.value }
    }

    /// Members as given, without checking names for duplicates (the parser checks).
    init(uncheckedMembers: [Member]) { self.members = uncheckedMembers }

    /// The first member's position (0).
    public var startIndex: Int { 0 }
    /// One past the last member's position.
    public var endIndex: Int { members.count }
    /// The member at `position`.
    public subscript(position: Int) -> Member { members[position] }

    /// The names in order.
    public var keys: [String] { members.map(\.key) }

    /// The value of member `key`; setting `nil` removes it, setting a new name appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            // Lengths first: a name's UTF-8 length is read without touching its bytes, and most
            // names a look-up passes differ in it; `==` on two different names is a call.
            // Over the members' storage in place: `for m in members` copied each member, a
            // retain and a release of its name and its value, to compare one name (making the
            // rows of 100,000 records at start-up: 1,262 → 1,219 million instructions, callgrind).
            let length = key.utf8.count
            return members.withUnsafeBufferPointer { members in
                for i in members.indices where members[i].key.utf8.count == length && members[i].key == key {
                    return members[i].value
                }
                return nil
            }
        }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let v = newValue { members[i].value = v } else { members.remove(at: i) }
            } else if let v = newValue {
                members.append((key: key, value: v))
            }
        }
    }

    /// Equal when both have the same names with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for m in lhs.members {
            guard let v = rhs[m.key], v == m.value else { return false }
        }
        return true
    }

    /// Hashes the members independently of their order (consistent with `==`).
    public func hash(into hasher: inout Hasher) {
        var acc = 0
        for m in members {
            var h = Hasher()
            h.combine(m.key)
            h.combine(m.value)
            acc = acc &+ h.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(acc)
    }
}
