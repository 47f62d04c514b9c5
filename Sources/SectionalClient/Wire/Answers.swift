/// `GET /v1/lists`: the lists the caller may read.
public struct ListsIndex: Decodable, Sendable {
    /// One list in the index.
    public struct Summary: Decodable, Hashable, Sendable {
        /// Its name, title and version.
        public var name: String, title: String, version: Int64
        /// Its counts.
        public var sectionCount: Int, rowCount: Int
    }
    /// The lists.
    public var lists: [Summary]
}

/// A list's outline: every section, no rows.
public struct Outline: Decodable, Hashable, Sendable {
    /// The list name and title.
    public var list: String, title: String
    /// The list version this outline shows.
    public var version: Int64
    /// Counts: sections, visible rows, all rows, tags.
    public var sectionCount: Int, rowCount: Int, totalRowCount: Int, tagCount: Int
    /// The sections, in order.
    public var sections: [ListSection]
}

/// One page of visible rows, grouped in their sections.
public struct ListPage: Decodable, Sendable {
    /// The list and its version.
    public var list: String, version: Int64
    /// The sections on this page, each with its rows on it.
    public var sections: [SectionWithRows]
    /// The next page's token; `nil` on the last page.
    public var nextPageToken: String?
    /// Visible rows before and after this page (for placeholders).
    public var itemsBefore: Int, itemsAfter: Int
}

/// `GET …/sections/{index}/rows`: a range of one section's visible rows.
public struct SectionRange: Decodable, Sendable {
    /// The list and its version.
    public var list: String, version: Int64
    /// The section with the rows asked for.
    public var section: SectionWithRows
}

/// `GET …/sections?type=T`: the indexes of every section of a type.
public struct SectionIndexes: Decodable, Sendable {
    /// The list and its version.
    public var list: String, version: Int64
    /// Section indexes, ascending.
    public var sections: [Int]
}

/// A look-up's answer (by tag, row id or type): where the row is, and the row.
public struct RowLookUp: Decodable, Sendable {
    /// The list and its version.
    public var list: String, version: Int64
    /// The tag asked for (tag look-ups only).
    public var tag: Int?
    /// Where the row is.
    public var indexPath: ListIndexPath
    /// Whether its section is hidden in this view.
    public var hidden: Bool
    /// The row.
    public var row: ListRow
}

/// A view: a client's hidden sections, by key.
public struct ViewState: Decodable, Hashable, Sendable {
    /// The view id, its list, and the keys it hides.
    public var view: String, list: String, hidden: [String]
}

/// A section as a view sees it after a change of its visibility.
public struct ViewSection: Decodable, Sendable {
    /// The list, its version and the view.
    public var list: String, version: Int64, view: String
    /// The section, as the view now sees it.
    public var section: ListSection
}

/// A list version, from the event stream.
public struct VersionEvent: Decodable, Hashable, Sendable {
    /// The list and its new version.
    public var list: String, version: Int64
    /// The first event of its connection (the stream's first, or the first after a reconnect),
    /// which says where the list is now whatever was heard before: a server that went back (a
    /// database put back) shows it only this way.
    public var isFirstOnConnection = false

    private enum CodingKeys: String, CodingKey { case list, version }
}
