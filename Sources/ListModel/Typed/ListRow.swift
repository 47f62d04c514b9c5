import JSONOutput

/// One row as an app shows it: the row object of the list's JSON answers, typed.
///
/// The server writes rows from pre-encoded bytes; an app (or a client library) reads them
/// into this value with ``init(json:)``, and a snapshot hands them out with
/// ``ListSnapshot/row(at:view:)``. Optional texts are `nil` when the row object omits them
/// (the server omits a text that renders empty).
public struct ListRow: Sendable, Hashable {
    /// The row's id: the record's `id`, or the literal row's.
    public var id: String
    /// The row type (the cell kind an app dequeues).
    public var type: String
    /// Where the row is: section and row, both 0-based.
    public var indexPath: ListIndexPath
    /// The row's range of tags (view tags), numbered across the whole list.
    public var tag: TagRange
    /// The main text.
    public var title: String
    /// The secondary text, if any.
    public var subtitle: String?
    /// The detail (trailing) text, if any.
    public var detail: String?
    /// An icon name, if any.
    public var icon: String?
    /// A badge text, if any.
    public var badge: String?
    /// The row height, points.
    public var height: Double
    /// The accessibility identifier, when the section's definition asks for one.
    public var accessibilityIdentifier: String?
    /// What a tap does (e.g. a deep link), if any.
    public var action: String?
    /// An image URL, if any.
    public var image: String?
    /// The trailing accessory; nil: none.
    public var accessory: RowAccessory?
    /// `false` for a disabled row (the row object then says `"enabled": false`; absent is `true`).
    public var enabled: Bool
    /// A toggle's state, when the row has one.
    public var value: Bool?
    /// Swipe actions, in order (empty: none).
    public var actions: [Action]
    /// Record fields copied as they are (typed values), when the definition asks for them.
    public var data: JSONObject?

    /// One swipe action: `id` is what the app acts on.
    public struct Action: Sendable, Hashable {
        /// Unique among the row's actions.
        public var id: String
        /// The button text.
        public var title: String
        /// `default` or `destructive`.
        public var style: RowAction.Style

        /// An action from its parts.
        public init(id: String, title: String, style: RowAction.Style = .default) {
            self.id = id
            self.title = title
            self.style = style
        }
    }

    /// A row from its parts.
    public init(id: String, type: String, indexPath: ListIndexPath, tag: TagRange, title: String,
                subtitle: String? = nil, detail: String? = nil, icon: String? = nil, badge: String? = nil,
                height: Double, accessibilityIdentifier: String? = nil, action: String? = nil, image: String? = nil,
                accessory: RowAccessory? = nil, enabled: Bool = true, value: Bool? = nil, actions: [Action] = [],
                data: JSONObject? = nil) {
        self.id = id
        self.type = type
        self.indexPath = indexPath
        self.tag = tag
        self.title = title
        self.subtitle = subtitle
        self.detail = detail
        self.icon = icon
        self.badge = badge
        self.height = height
        self.accessibilityIdentifier = accessibilityIdentifier
        self.action = action
        self.image = image
        self.accessory = accessory
        self.enabled = enabled
        self.value = value
        self.actions = actions
        self.data = data
    }

    /// Reads a row object of the API (`{"id","type","indexPath":{"section","row"},
    /// "tag":{"location","length"},"title",…,"height",…}`); `nil` when a required member is
    /// missing or has the wrong type. Unknown members (and actions without `id` or `title`) are ignored.
    public init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, let type = json["type"]?.stringValue,
              let section = json["indexPath"]?["section"]?.intValue, let row = json["indexPath"]?["row"]?.intValue,
              let location = json["tag"]?["location"]?.intValue, let length = json["tag"]?["length"]?.intValue,
              let title = json["title"]?.stringValue, let height = json["height"]?.doubleValue else { return nil }
        self.init(id: id, type: type, indexPath: ListIndexPath(section: Int(section), row: Int(row)),
                  tag: TagRange(location: Int(location), length: Int(length)), title: title,
                  subtitle: json["subtitle"]?.stringValue, detail: json["detail"]?.stringValue,
                  icon: json["icon"]?.stringValue, badge: json["badge"]?.stringValue, height: height,
                  accessibilityIdentifier: json["accessibilityIdentifier"]?.stringValue, action: json["action"]?.stringValue,
                  image: json["image"]?.stringValue, accessory: json["accessory"]?.stringValue.flatMap(RowAccessory.init(rawValue:)),
                  enabled: json["enabled"]?.boolValue ?? true, value: json["value"]?.boolValue,
                  actions: (json["actions"]?.arrayValue ?? []).compactMap { a in
                      guard let id = a["id"]?.stringValue, let title = a["title"]?.stringValue else { return nil }
                      return Action(id: id, title: title, style: a["style"]?.stringValue.flatMap(RowAction.Style.init(rawValue:)) ?? .default)
                  },
                  data: json["data"]?.objectValue)
    }
}

extension ListSnapshot {
    /// The row at `indexPath`, typed; `nil` when out of range. (`view` only decides
    /// ``RowLocation/hidden``, which a typed row does not carry; it is here for symmetry with
    /// the other look-ups.)
    public func row(at indexPath: ListIndexPath, view: ViewState = ViewState()) -> ListRow? {
        location(section: indexPath.section, row: indexPath.row, view: view).flatMap(row(of:))
    }

    /// The typed row of a look-up's answer.
    public func row(of location: RowLocation) -> ListRow? {
        var w = JSONWriter(capacity: 256)
        writeRow(location, into: &w)
        return (try? JSONParser.parse(w.bytes)).flatMap(ListRow.init(json:))
    }
}
