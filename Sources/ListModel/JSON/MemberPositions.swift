/// Where the members of an object being built or patched are, by name (compared by code
/// points): a scan of the members while they are few, a hash table once there are more.
///
/// Building or patching an object one member at a time with a scan per member is quadratic: a
/// 1 MB body of 130,000 members took half a minute to store and three to patch. With this, each
/// step costs O(1) beyond ``scanLimit`` members, and small objects (most records) allocate no
/// table at all.
struct MemberPositions {
    /// Up to this many members a scan (lengths first, then bytes) is cheaper than hashing.
    static let scanLimit = 16

    /// Name → position, once there are more than ``scanLimit`` members.
    private var table: [CodePointKey: Int]?

    /// Positions in `members` (a table made at once when they are many).
    init(_ members: [JSONObject.Member]) {
        table = members.count > Self.scanLimit ? Self.table(of: members) : nil
    }

    /// The position of member `key` in `members`, which must be the members this was made
    /// from, with every later append told through ``appended(to:)``.
    func position(of key: String, in members: [JSONObject.Member]) -> Int? {
        if let table { return table[CodePointKey(key)] }
        return members.withUnsafeBufferPointer { JSONObject.position(of: key, in: $0) }
    }

    /// Takes note that a member (with a new name) was just appended to `members`.
    mutating func appended(to members: [JSONObject.Member]) {
        if table != nil {
            table![CodePointKey(members[members.count - 1].key)] = members.count - 1
        } else if members.count > Self.scanLimit {
            table = Self.table(of: members)
        }
    }

    private static func table(of members: [JSONObject.Member]) -> [CodePointKey: Int] {
        var table: [CodePointKey: Int] = [:]
        table.reserveCapacity(members.count)
        for (i, m) in members.enumerated() { table[CodePointKey(m.key)] = i }
        return table
    }
}
