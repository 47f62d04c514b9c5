/// Edge insets of a section, points; all default to 0.
public struct Insets: Sendable, Hashable {
    public var top: Double, left: Double, bottom: Double, right: Double
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }
}

/// `accessibility` of a section spec.
public struct AccessibilitySpec: Sendable, Equatable {
    public let identifier: String
    public let includesSection: Bool
    public let includesRow: Bool
}

/// A section header or footer: a section template and a height.
///
/// The contract is silent on defaults: `title` defaults to `""` and `height` to 28 (UIKit's plain
/// section header height); both are always written.
public struct SupplementarySpec: Sendable, Equatable {
    public let title: Template
    public let height: Double
}

/// How the sections of one `groupBy` spec are ordered (by their keys, code-point order).
public enum SectionOrder: Sendable, Equatable {
    case ascending
    case descending
    /// These keys first in this order, the rest ascending after them.
    case explicit([String])
}

/// One `sortBy` entry.
public struct SortField: Sendable, Equatable {
    public let path: FieldPath
    public let descending: Bool
}

/// The row template of a data-bound spec (after a `rowTypes` entry is merged over `row`).
public struct RowTemplate: Sendable, Equatable {
    public var type: String
    public var title: Template
    public var subtitle: Template?
    public var detail: Template?
    public var icon: Template?
    public var badge: Template?
    public var action: Template?
    public var tagLength: Int
    public var height: Double
}

/// A row written out in the configuration (settings-screen style). Its texts are literal:
/// braces are not placeholders here, since there is no record to read.
public struct LiteralRow: Sendable, Equatable {
    public let id: String
    public let type: String
    public let title: String
    public let subtitle: String?
    public let detail: String?
    public let icon: String?
    public let badge: String?
    public let action: String?
    public let tagLength: Int
    public let height: Double
}

/// The data-binding part of a spec with `source`.
public struct DataBinding: Sendable {
    public let source: String
    public let filter: [(path: FieldPath, value: JSONValue)]
    public let groupBy: FieldPath?
    public let sectionOrder: SectionOrder
    public let hiddenByDefault: [String]
    public let sortBy: [SortField]
    public let row: RowTemplate
    public let typeField: FieldPath?
    /// `rowTypes` entries already merged over `row`.
    public let rowTypes: [String: RowTemplate]

    /// `true` when the record satisfies every `where` condition.
    @inline(__always)
    func matches(_ record: JSONObject) -> Bool {
        for f in filter {
            guard let v = f.path.lookup(in: record), v == f.value else { return false }
        }
        return true
    }

    /// The row template for a record (typeField + rowTypes merge) and the row type.
    @inline(__always)
    func template(for record: JSONObject) -> (RowTemplate, String) {
        guard let tf = typeField, case .string(let t)? = tf.lookup(in: record) else { return (row, row.type) }
        return (rowTypes[t] ?? row, t)
    }

    /// The record's `typeField` value when it is a string (`nil`: the default `row` type).
    @inline(__always)
    func rowType(for record: JSONObject) -> String? {
        guard let tf = typeField, case .string(let t)? = tf.lookup(in: record) else { return nil }
        return t
    }

    /// The template for a row type from ``rowType(for:)``.
    @inline(__always)
    func template(forType t: String?) -> RowTemplate {
        guard let t, !rowTypes.isEmpty, let r = rowTypes[t] else { return row }
        return r
    }
}

/// One entry of a list definition's `sections` array: literal or data-bound.
public struct SectionSpec: Sendable {
    public enum Content: Sendable {
        case literal([LiteralRow])
        case data(DataBinding)
    }

    /// Position in the `sections` array.
    public let index: Int
    /// `key` (literal sections and data specs without `groupBy`).
    public let key: String?
    /// Section type; `""` when not given.
    public let type: String
    /// Section title template (`""` when not given).
    public let title: Template
    public let icon: Template?
    public let header: SupplementarySpec?
    public let footer: SupplementarySpec?
    public let insets: Insets
    public let lineSpacing: Double
    /// `hidden: true` — hidden in the default view (not allowed with `groupBy`).
    public let hidden: Bool
    public let accessibility: AccessibilitySpec?
    public let content: Content

    /// Pre-built rows of a literal spec.
    let literalRows: [Row]
    /// `,"accessibilityIdentifier":"<identifier>` (escaped, no closing quote), or empty.
    let accessibilityPrefix: [UInt8]

    /// The data binding, if this spec has `source`.
    public var binding: DataBinding? {
        if case .data(let b) = content { return b }
        return nil
    }

    /// `true` for data-bound specs with `groupBy` (sections appear and vanish with the data).
    var isGrouped: Bool { binding?.groupBy != nil }
}
