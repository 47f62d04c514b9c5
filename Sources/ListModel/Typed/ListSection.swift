import JSONOutput

/// One section as an app shows it: the section object of the list's JSON answers (outline,
/// pages, section ranges) without its rows, typed.
public struct ListSection: Sendable, Hashable {
    /// A section header or footer.
    public struct Supplementary: Sendable, Hashable {
        /// The text.
        public var title: String
        /// The height, points.
        public var height: Double
        /// The accessibility identifier, when the section's definition asks for one.
        public var accessibilityIdentifier: String?

        /// A header or footer from its parts.
        public init(title: String, height: Double, accessibilityIdentifier: String? = nil) {
            self.title = title
            self.height = height
            self.accessibilityIdentifier = accessibilityIdentifier
        }

        /// Reads `{"title","height"[,"accessibilityIdentifier"]}`; `nil` for anything else.
        public init?(json: JSONValue) {
            guard let title = json["title"]?.stringValue, let height = json["height"]?.doubleValue else { return nil }
            self.init(title: title, height: height, accessibilityIdentifier: json["accessibilityIdentifier"]?.stringValue)
        }
    }

    /// The section's index in the list (0-based).
    public var index: Int
    /// The section's key, unique in the list.
    public var key: String
    /// The section type (`""` when not configured).
    public var type: String
    /// The section title (`""` when not configured).
    public var title: String
    /// An icon name, if any.
    public var icon: String?
    /// The header, if any.
    public var header: Supplementary?
    /// The footer, if any.
    public var footer: Supplementary?
    /// Edge insets, points.
    public var insets: Insets
    /// Spacing between rows, points.
    public var lineSpacing: Double
    /// Whether the view hides the section (then ``rowCount`` is 0).
    public var hidden: Bool
    /// Rows the view sees in the section.
    public var rowCount: Int
    /// Rows in the section, hidden or not.
    public var totalRowCount: Int
    /// The tag of the section's first row.
    public var firstTag: Int

    /// A section from its parts.
    public init(index: Int, key: String, type: String, title: String, icon: String? = nil,
                header: Supplementary? = nil, footer: Supplementary? = nil, insets: Insets = Insets(),
                lineSpacing: Double = 0, hidden: Bool = false, rowCount: Int, totalRowCount: Int, firstTag: Int) {
        self.index = index
        self.key = key
        self.type = type
        self.title = title
        self.icon = icon
        self.header = header
        self.footer = footer
        self.insets = insets
        self.lineSpacing = lineSpacing
        self.hidden = hidden
        self.rowCount = rowCount
        self.totalRowCount = totalRowCount
        self.firstTag = firstTag
    }

    /// Reads a section object of the API; `nil` when a required member is missing or has the
    /// wrong type. Members other than the section's own (e.g. `rows`, `rowOffset`) are ignored.
    public init?(json: JSONValue) {
        guard let index = json["index"]?.intValue, let key = json["key"]?.stringValue,
              let type = json["type"]?.stringValue, let title = json["title"]?.stringValue,
              let hidden = json["hidden"]?.boolValue, let rowCount = json["rowCount"]?.intValue,
              let totalRowCount = json["totalRowCount"]?.intValue, let firstTag = json["firstTag"]?.intValue else { return nil }
        let i = json["insets"]
        self.init(index: Int(index), key: key, type: type, title: title, icon: json["icon"]?.stringValue,
                  header: json["header"].flatMap(Supplementary.init(json:)), footer: json["footer"].flatMap(Supplementary.init(json:)),
                  insets: Insets(top: i?["top"]?.doubleValue ?? 0, left: i?["left"]?.doubleValue ?? 0,
                                 bottom: i?["bottom"]?.doubleValue ?? 0, right: i?["right"]?.doubleValue ?? 0),
                  lineSpacing: json["lineSpacing"]?.doubleValue ?? 0, hidden: hidden, rowCount: Int(rowCount),
                  totalRowCount: Int(totalRowCount), firstTag: Int(firstTag))
    }
}

extension ListSnapshot {
    /// Section `index` as `view` sees it, typed; `nil` when out of range.
    public func listSection(at index: Int, view: ViewState = ViewState()) -> ListSection? {
        guard index >= 0, index < sectionCount else { return nil }
        var w = JSONWriter(capacity: 256)
        writeSection(index, view: view, into: &w)
        return (try? JSONParser.parse(w.bytes)).flatMap(ListSection.init(json:))
    }
}
