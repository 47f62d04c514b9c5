/// A section without its rows, as the server serves it.
public struct ListSection: Codable, Hashable, Sendable {
    /// The section index in the list.
    public var index: Int
    /// Unique within the list; views hide sections by key.
    public var key: String
    /// The section type; may be empty.
    public var type: String
    /// The section title; may be empty.
    public var title: String
    /// An icon name, when the definition gives one.
    public var icon: String?
    /// The header and footer, `nil` when the section has none.
    public var header: Supplementary?, footer: Supplementary?
    /// Insets, when the definition gives them.
    public var insets: Insets?
    /// Line spacing, when the definition gives it.
    public var lineSpacing: Double?
    /// Hidden in this view (or by default without one).
    public var hidden: Bool
    /// Visible rows: 0 when hidden.
    public var rowCount: Int
    /// All rows, hidden or not.
    public var totalRowCount: Int
    /// The tag location of the section's first row (or where it would be).
    public var firstTag: Int
    /// How the section's rows build their accessibility identifiers, when the server says so (this
    /// server does not: a moved row whose identifier names its index path is fetched again).
    public var accessibility: Accessibility?

    /// A row accessibility identifier template: `identifier` plus the index path parts named in `options`.
    public struct Accessibility: Codable, Hashable, Sendable {
        /// The identifier's stem.
        public var identifier: String
        /// A subset of `section`, `row`.
        public var options: [String]

        /// `identifier_S_R`, `identifier_S`, `identifier_R` or `identifier`, as the options say.
        public func rowIdentifier(at path: ListIndexPath) -> String {
            var parts = [identifier]
            if options.contains("section") { parts.append(String(path.section)) }
            if options.contains("row") { parts.append(String(path.row)) }
            return parts.joined(separator: "_")
        }
    }
}

/// A section header or footer.
public struct Supplementary: Codable, Hashable, Sendable {
    /// Its title, when it has one.
    public var title: String?
    /// Its height, when the definition gives one.
    public var height: Double?
    /// Its accessibility identifier, when the section has an accessibility identifier.
    public var accessibilityIdentifier: String?
}

/// Section insets.
public struct Insets: Codable, Hashable, Sendable {
    /// Edge insets in points.
    public var top: Double, left: Double, bottom: Double, right: Double
}

/// A section with some of its visible rows: `rows` start at row `rowOffset` (0 when the answer has no offset).
public struct SectionWithRows: Decodable, Hashable, Sendable {
    /// The section.
    public var section: ListSection
    /// The rows.
    public var rows: [ListRow]
    /// The row index of `rows.first` within the section.
    public var rowOffset: Int

    private enum Keys: String, CodingKey { case rows, rowOffset }

    /// Decodes a section object that also has `rows` (and maybe `rowOffset`).
    public init(from decoder: Decoder) throws {
        section = try ListSection(from: decoder)
        let container = try decoder.container(keyedBy: Keys.self)
        rows = try container.decode([ListRow].self, forKey: .rows)
        rowOffset = try container.decodeIfPresent(Int.self, forKey: .rowOffset) ?? 0
    }
}
