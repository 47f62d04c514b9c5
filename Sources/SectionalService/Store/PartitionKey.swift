import ListModel

/// One user's partition of a per-user list: the owner value their token's claim gives, its
/// canonical text (``ScalarKey``: equal JSON values give equal keys) and a fingerprint for
/// entity tags and page-token bindings.
public struct PartitionKey: Hashable, Sendable {
    /// The claim value records are compared with.
    public let value: JSONValue
    /// The canonical text (``ScalarKey/text``).
    public let text: String

    /// The key for a scalar claim value; nil for null, arrays and objects (no partition).
    public init?(_ value: JSONValue) {
        guard let key = ScalarKey(value) else { return nil }
        self.value = value
        text = key.text
    }

    /// The partition of nobody: no record's scope field holds a value that gives this key (its
    /// text has no type prefix), so it shows a per-user list's literal sections only.
    static let nobody = PartitionKey(nobody: ())

    private init(nobody: Void) {
        value = .null
        text = "-"
    }

    /// The value as a user names it in `?user=`: a string as it is, a number or boolean as its
    /// JSON text (``text`` without its type prefix).
    var valueText: String { String(text.utf8.dropFirst(2))! }

    /// Whose views a read of this partition uses: a string value as it is (what views of a list
    /// split by `sub` were always bound to), another value by its canonical ``text``, so that a
    /// number `5` and a string `"5"` are not one owner. A string that begins as such a text does
    /// (`"n:5"`, `"b:true"`, `"s:…"`), or is nobody's (`"-"`), is its canonical text too: the
    /// string `"n:5"` was the owner of the number `5`'s views, and could read and change them.
    var owner: String {
        guard case .string(let string) = value else { return text }
        let bytes = string.utf8
        let ambiguous = bytes.elementsEqual("-".utf8) || ["n:", "b:", "s:"].contains { bytes.starts(with: $0.utf8) }
        return ambiguous ? text : string
    }

    /// 64 bits of FNV-1a over ``text``: the same in every process.
    public var fingerprint: UInt64 {
        var hash = FNV1a()
        hash.combine(text)
        return hash.value
    }

    /// By code points (``CodePointKey``), as the stores select a partition's records: "Karl" and
    /// "\u{212A}arl" (a Kelvin sign) are two users, though Swift's `String` calls them equal.
    public static func == (lhs: PartitionKey, rhs: PartitionKey) -> Bool { CodePointKey(lhs.text) == CodePointKey(rhs.text) }
    public func hash(into hasher: inout Hasher) { CodePointKey(text).hash(into: &hasher) }
}

/// Which materialization of a list: the list itself, or one partition of a per-user list —
/// in the list's first language, or in another of its languages — whole, or the result of a
/// search and filters.
struct MaterializationKey: Hashable, Sendable {
    let list: String
    let partition: PartitionKey?
    /// A language other than the list's first; nil for the first.
    var language: String? = nil
    /// The search and filters whose result this is; nil for the whole list.
    var query: ListQuery? = nil

    /// The whole list (or partition, in the same language) a search result is taken from.
    var base: MaterializationKey { MaterializationKey(list: list, partition: partition, language: language) }

    /// Whether this is a list that is the same for everyone, as a whole, in its first language.
    var isWholeList: Bool { partition == nil && language == nil && query == nil }

    /// The name event streams are filed under (compared by code points: ``EventHub``).
    var streamName: String { partition.map { "\(list)\u{1F}\($0.text)" } ?? list }
}
