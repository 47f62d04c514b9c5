/// A JSON object: members in the order they were given (or parsed).
///
/// Member names are unique (the parser rejects duplicates; ``subscript(_:)`` replaces) and are
/// compared by code points, as the parser, the stores and RFC 8259 compare them: "café" with a
/// precomposed é and with e and a combining accent are two members, though Swift's `String`
/// calls the two names equal. Look-up is a linear scan, which beats hashing for the small objects
/// records are; equality ignores member order.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection {
    /// A member: name and value.
    public typealias Member = (key: String, value: JSONValue)

    /// The members in order.
    public private(set) var members: [Member]

    /// An empty object.
    public init() { members = [] }

    /// An object from members; a later duplicate name replaces the earlier value in place.
    /// Linear in the members (``MemberPositions``), however many there are.
    public init(_ members: [Member]) {
        self.members = []
        self.members.reserveCapacity(members.count)
        var positions = MemberPositions(self.members)
        for m in members {
            if let i = positions.position(of: m.key, in: self.members) {
                self.members[i].value = m.value
            } else {
                self.members.append(m)
                positions.appended(to: self.members)
            }
        }
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

    /// The value of member `key` (its name compared by code points); setting `nil` removes it,
    /// setting a new name appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            members.withUnsafeBufferPointer { members in Self.position(of: key, in: members).map { members[$0].value } }
        }
        set {
            if let i = members.withUnsafeBufferPointer({ Self.position(of: key, in: $0) }) {
                if let v = newValue { members[i].value = v } else { members.remove(at: i) }
            } else if let v = newValue {
                members.append((key: key, value: v))
            }
        }
    }

    /// The position of the member named `key` (by code points) in `members`, by a scan.
    ///
    /// Lengths first: a name's UTF-8 length is read without touching its bytes, and most names
    /// a look-up passes differ in it. Then `String`'s `==`, which is fast (the same
    /// representation, two small strings, ASCII) and never false for the same bytes, but also
    /// true for canonically equivalent different names; so a hit is confirmed by the bytes
    /// unless the two strings are the same representation. (Comparing bytes alone cost a look-up
    /// in an 11-member record 36% more instructions than `==` alone; this, 4% more.)
    /// Over the members' storage in place: `for m in members` copied each member, a retain and
    /// a release of its name and its value, to compare one name (making the rows of 100,000
    /// records at start-up: 1,262 → 1,219 million instructions, callgrind).
    @inline(__always)
    static func position(of key: String, in members: UnsafeBufferPointer<Member>) -> Int? {
        let length = key.utf8.count
        for i in members.indices where members[i].key.utf8.count == length && members[i].key == key
            && (sameRepresentation(members[i].key, key) || sameCodePoints(members[i].key, key)) {
            return i
        }
        return nil
    }

    /// Whether `a` and `b` are bit for bit the same value (then certainly the same bytes): two
    /// equal small strings, or two references to one storage.
    @inline(__always)
    private static func sameRepresentation(_ a: String, _ b: String) -> Bool {
        unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self)
    }

    /// `a == b` by code points; out of line, as only hits that ``sameRepresentation(_:_:)``
    /// did not settle need it.
    @inline(never)
    private static func sameCodePoints(_ a: String, _ b: String) -> Bool { codePointEqual(a, b) }

    /// Changes members in turn, in time linear in both objects' members (a scan per change was
    /// quadratic): for each member of `changes`, in order, `change` takes the current value of the
    /// member of that name (nil: none) and the change, and gives the new value, or `.none` to
    /// remove the member (a `nil` literal there is JSON `null`). A new name is appended; the others
    /// keep their places.
    mutating func update(with changes: JSONObject, _ change: (JSONValue?, JSONValue) -> JSONValue?) {
        var positions = MemberPositions(members)
        // Removals wait until the end, so that positions stay put; no later change names a
        // removed member again (the names of `changes` are unique).
        var removed: [Int] = []
        for c in changes.members {
            if let i = positions.position(of: c.key, in: members) {
                if let v = change(members[i].value, c.value) { members[i].value = v } else { removed.append(i) }
            } else if let v = change(nil, c.value) {
                members.append((key: c.key, value: v))
                positions.appended(to: members)
            }
        }
        guard !removed.isEmpty else { return }
        if removed.count == 1 { members.remove(at: removed[0]); return }
        removed.sort()
        var kept: [Member] = []
        kept.reserveCapacity(members.count - removed.count)
        var next = 0
        for (i, m) in members.enumerated() {
            if next < removed.count, removed[next] == i { next += 1 } else { kept.append(m) }
        }
        members = kept
    }

    /// Equal when both have the same names (by code points) with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        let positions = MemberPositions(rhs.members)
        for m in lhs.members {
            guard let i = positions.position(of: m.key, in: rhs.members), rhs.members[i].value == m.value else { return false }
        }
        return true
    }

    /// Hashes the members independently of their order (consistent with `==`).
    public func hash(into hasher: inout Hasher) {
        var acc = 0
        for m in members {
            var h = Hasher()
            CodePointKey(m.key).hash(into: &h)
            h.combine(m.value)
            acc = acc &+ h.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(acc)
    }
}
