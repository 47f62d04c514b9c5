/// A server-computed batch update: what turns an earlier outline of a list into the
/// current one, with UIKit `performBatchUpdates` semantics.
///
/// `deleted` and `updated` use **old** indexes, `inserted` uses **new** indexes, moves go old →
/// new. The rows of deleted sections are implied deleted and the rows of inserted sections
/// implied inserted; neither are listed. Rows move only between sections present in both
/// versions. No index is both deleted and moved from, or both inserted and moved to. Every
/// array is sorted ascending (moves by their `from`), so equal updates compare equal.
public struct BatchUpdate: Sendable, Equatable {
    /// A section that moved: old index → new index.
    public struct SectionMove: Sendable, Hashable {
        /// The old index.
        public var from: Int
        /// The new index.
        public var to: Int
        /// A section move.
        public init(from: Int, to: Int) { self.from = from; self.to = to }
    }

    /// A row that moved: old index path → new index path; `updated` when its served content
    /// changed too.
    public struct RowMove: Sendable, Hashable {
        /// The old index path.
        public var from: ListIndexPath
        /// The new index path.
        public var to: ListIndexPath
        /// Whether the row's served content changed too.
        public var updated: Bool
        /// A row move.
        public init(from: ListIndexPath, to: ListIndexPath, updated: Bool) { self.from = from; self.to = to; self.updated = updated }
    }

    /// Section operations.
    public struct Sections: Sendable, Equatable {
        /// Old indexes of sections that no longer exist.
        public var deleted: [Int] = []
        /// New indexes of sections that did not exist.
        public var inserted: [Int] = []
        /// Sections present in both versions whose relative order changed.
        public var moved: [SectionMove] = []
        /// Old indexes of sections present in both versions, not moved, whose header fields
        /// (type, title, icon, header, footer, insets, line spacing) changed.
        public var updated: [Int] = []
        /// No operations.
        public init() {}
    }

    /// Row operations.
    public struct Rows: Sendable, Equatable {
        /// Old index paths of rows removed from sections that still exist.
        public var deleted: [ListIndexPath] = []
        /// New index paths of rows added to sections that already existed.
        public var inserted: [ListIndexPath] = []
        /// Rows that changed position (within or between sections present in both versions).
        public var moved: [RowMove] = []
        /// Old index paths of rows that did not move and whose served content changed.
        public var updated: [ListIndexPath] = []
        /// No operations.
        public init() {}
    }

    /// Section operations.
    public var sections: Sections
    /// Row operations.
    public var rows: Rows

    /// An update from its operations (none by default).
    public init(sections: Sections = Sections(), rows: Rows = Rows()) {
        self.sections = sections
        self.rows = rows
    }

    /// Number of operations listed (the measure `maxChanges` bounds).
    public var operationCount: Int {
        sections.deleted.count + sections.inserted.count + sections.moved.count + sections.updated.count
            + rows.deleted.count + rows.inserted.count + rows.moved.count + rows.updated.count
    }

    /// `true` when nothing changed (as seen through the view).
    public var isEmpty: Bool { operationCount == 0 }
}
