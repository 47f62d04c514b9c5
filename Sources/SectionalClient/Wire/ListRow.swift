/// A ready-to-draw row, as the server serves it.
public struct ListRow: Codable, Hashable, Sendable {
    /// Unique within the list: a literal row id or a record id.
    public var id: String
    /// The row type (cell identifier).
    public var type: String
    /// Where the row is (positional: shifts when neighbours change).
    public var indexPath: ListIndexPath
    /// The row's tag range (positional: its location shifts when rows before it change).
    public var tag: TagRange
    /// Always present; may be empty.
    public var title: String
    /// Optional texts and links; absent when their template renders empty.
    public var subtitle: String?, detail: String?, icon: String?, badge: String?, action: String?
    /// The row height (44 unless the definition says otherwise).
    public var height: Double
    /// The accessibility identifier, when the section has one (positional: it may carry the index path).
    public var accessibilityIdentifier: String?
    /// An image URL, if any.
    public var image: String?
    /// `disclosure`, `checkmark`, `detail` or `toggle`; absent: none.
    public var accessory: String?
    /// `false` for a disabled row; absent means enabled (see ``isEnabled``).
    public var enabled: Bool?
    /// A toggle's state, when the row has one.
    public var value: Bool?
    /// Swipe actions, in order; absent: none.
    public var actions: [SwipeAction]?
    /// Record fields copied as they are, when the list's definition asks for them.
    public var data: [String: JSON]?

    /// `true` unless the row says `"enabled": false`.
    public var isEnabled: Bool { enabled ?? true }

    /// One swipe action of a row.
    public struct SwipeAction: Codable, Hashable, Sendable {
        /// Unique among the row's actions: what the app acts on.
        public var id: String
        /// The button text.
        public var title: String
        /// `default` or `destructive`.
        public var style: String
    }
}

/// A tag range: a row occupies `length` consecutive tags from `location`.
public struct TagRange: Codable, Hashable, Sendable {
    /// The first tag.
    public var location: Int
    /// How many tags (0 allowed).
    public var length: Int

    /// A range from its parts.
    public init(location: Int, length: Int) {
        self.location = location
        self.length = length
    }
}
