import ListModel

/// One user's partition of a per-user list: the owner value their token's claim gives, as a
/// canonical text (equal JSON values give equal keys: `42` and `42.0` alike) and a
/// fingerprint for entity tags and page-token bindings.
public struct PartitionKey: Hashable, Sendable {
    /// The claim value records are compared with.
    public let value: JSONValue
    /// The canonical text: `s:` and the string, `n:` and the number, `b:` and the boolean.
    public let text: String

    /// The key for a scalar claim value; nil for null, arrays and objects (no partition).
    public init?(_ value: JSONValue) {
        switch value {
        case .string(let string): text = "s:" + string
        case .bool(let flag): text = flag ? "b:true" : "b:false"
        case .int(let number): text = "n:\(number)"
        case .double, .number:
            guard let double = value.doubleValue, double.isFinite else { return nil }
            if double == double.rounded(), let integer = Int64(exactly: double) {
                text = "n:\(integer)"
            } else {
                var writer = JSONWriter(capacity: 32)
                writer.value(value)
                text = "n:" + String(decoding: writer.bytes, as: UTF8.self)
            }
        default: return nil
        }
        self.value = value
    }

    /// The partition of nobody: no record's scope field holds a value that gives this key (its
    /// text has no type prefix), so it shows a per-user list's literal sections only.
    static let nobody = PartitionKey(nobody: ())

    private init(nobody: Void) {
        value = .null
        text = "-"
    }

    /// 64 bits of FNV-1a over ``text``: the same in every process.
    public var fingerprint: UInt64 {
        var hash = FNV1a()
        hash.combine(text)
        return hash.value
    }

    public static func == (lhs: PartitionKey, rhs: PartitionKey) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

/// Which materialization of a list: the list itself, or one partition of a per-user list.
struct MaterializationKey: Hashable, Sendable {
    let list: String
    let partition: PartitionKey?

    /// The name event streams are filed under.
    var streamName: String { partition.map { "\(list)\u{1F}\($0.text)" } ?? list }
}
