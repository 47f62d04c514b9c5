/// A batch update with UIKit `performBatchUpdates` semantics: the server's `changes` answer, and
/// what a ``ListMirror`` returns to animate. `deleted` and `updated` use from-version indexes,
/// `inserted` to-version indexes, `moved` goes from old to new. With `reload`, nothing is listed:
/// reload everything.
public struct Changes: Codable, Hashable, Sendable {
    /// The list.
    public var list: String
    /// The versions this update goes between.
    public var from: Int64, to: Int64
    /// Reload everything instead of animating.
    public var reload: Bool
    /// Section operations (empty on reload).
    public var sections: SectionChanges
    /// Row operations (empty on reload).
    public var rows: RowChanges

    /// Section operations.
    public struct SectionChanges: Codable, Hashable, Sendable {
        /// A section move.
        public struct Move: Codable, Hashable, Sendable {
            /// Old and new index.
            public var from: Int, to: Int
        }
        /// Deleted and updated (old indexes), inserted (new indexes), moved.
        public var deleted: [Int] = [], inserted: [Int] = [], moved: [Move] = [], updated: [Int] = []
        /// Nothing.
        public init() {}
    }

    /// Row operations.
    public struct RowChanges: Codable, Hashable, Sendable {
        /// A row move; `updated` when its content changed too.
        public struct Move: Codable, Hashable, Sendable {
            /// Old and new index path.
            public var from: ListIndexPath, to: ListIndexPath
            /// Its content changed too.
            public var updated: Bool?
        }
        /// Deleted and updated (old index paths), inserted (new index paths), moved.
        public var deleted: [ListIndexPath] = [], inserted: [ListIndexPath] = [], moved: [Move] = [], updated: [ListIndexPath] = []
        /// Nothing.
        public init() {}
    }

    /// An update from its parts.
    public init(list: String, from: Int64, to: Int64, reload: Bool, sections: SectionChanges = .init(), rows: RowChanges = .init()) {
        self.list = list
        self.from = from
        self.to = to
        self.reload = reload
        self.sections = sections
        self.rows = rows
    }

    private enum Keys: String, CodingKey { case list, from, to, reload, sections, rows }

    /// Decodes a `changes` answer; a reload answer has no `sections`/`rows`.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        list = try c.decode(String.self, forKey: .list)
        from = try c.decode(Int64.self, forKey: .from)
        to = try c.decode(Int64.self, forKey: .to)
        reload = try c.decode(Bool.self, forKey: .reload)
        sections = try c.decodeIfPresent(SectionChanges.self, forKey: .sections) ?? .init()
        rows = try c.decodeIfPresent(RowChanges.self, forKey: .rows) ?? .init()
    }

    /// True when there is nothing to animate.
    public var isEmpty: Bool { !reload && sections == .init() && rows == .init() }
}
