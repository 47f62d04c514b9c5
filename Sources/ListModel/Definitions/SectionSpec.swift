/// Edge insets of a section, points; all default to 0.
public struct Insets: Sendable, Hashable {
    /// Top inset.
    public var top: Double
    /// Left (leading) inset.
    public var left: Double
    /// Bottom inset.
    public var bottom: Double
    /// Right (trailing) inset.
    public var right: Double
    /// Insets from their edges (each 0 unless given).
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }
}

/// `accessibility` of a section spec.
public struct AccessibilitySpec: Sendable, Equatable {
    /// The identifier the row, header and footer identifiers start with.
    public let identifier: String
    /// `options` has `section`: `_<section index>` is appended.
    public let includesSection: Bool
    /// `options` has `row`: a row's identifier gets `_<row index>` (after the section's).
    public let includesRow: Bool
}

/// A section header or footer: a section template and a height.
///
/// The API contract (docs/api.md) is silent on defaults: `title` defaults to `""` and `height` to 28 (UIKit's plain
/// section header height); both are always written.
public struct SupplementarySpec: Sendable, Equatable {
    /// The title template (`{$key}`, `{$count}` allowed).
    public let title: Template
    /// The height, points (default 28).
    public let height: Double
}

/// How the sections of one `groupBy` spec are ordered (by their keys, code-point order).
public enum SectionOrder: Sendable, Equatable {
    /// Ascending key order (the default).
    case ascending
    /// Descending key order.
    case descending
    /// These keys first in this order, the rest ascending after them.
    case explicit([String])
}

/// One `sortBy` entry.
public struct SortField: Sendable, Equatable {
    /// The record field sorted by.
    public let path: FieldPath
    /// `order: "desc"`.
    public let descending: Bool
    /// `as`: what the value is read as (nil: as it is, by the default order of ``SortValue``).
    public var type: SortType? = nil

    /// The row's sort value for this rule.
    @inline(__always)
    func value(in record: JSONObject) -> SortValue {
        let v = path.lookup(in: record)
        guard let type else { return SortValue(v) }
        return type.sortValue(v)
    }
}

/// The row template of a data-bound spec (after a `rowTypes` entry is merged over `row`).
public struct RowTemplate: Sendable, Equatable {
    /// The row type (`""` when not given).
    public var type: String
    /// The `title` template.
    public var title: Template
    /// The `subtitle` template.
    public var subtitle: Template?
    /// The `detail` template.
    public var detail: Template?
    /// The `icon` template.
    public var icon: Template?
    /// The `badge` template.
    public var badge: Template?
    /// The `action` template.
    public var action: Template?
    /// Tags each row uses (default 1; 0 allowed).
    public var tagLength: Int
    /// Row height, points (default 44).
    public var height: Double
    /// `image`, `accessory`, `enabled`, `value`, `actions`, `data`; nil when none is given.
    public var extras: RowExtras? = nil
}

/// A row written out in the configuration (settings-screen style). Its texts are literal:
/// braces are not placeholders here, since there is no record to read.
public struct LiteralRow: Sendable, Equatable {
    /// The row id (unique in the list).
    public let id: String
    /// The row type (`""` when not given).
    public let type: String
    /// The title text.
    public let title: String
    /// The subtitle text, if any.
    public let subtitle: String?
    /// The detail text, if any.
    public let detail: String?
    /// The icon name, if any.
    public let icon: String?
    /// The badge text, if any.
    public let badge: String?
    /// The action (e.g. a deep link), if any.
    public let action: String?
    /// Tags the row uses (default 1; 0 allowed).
    public let tagLength: Int
    /// Row height, points (default 44).
    public let height: Double
    /// `image`, `accessory`, `enabled`, `value` and `actions` (literal texts and booleans); nil when none is given.
    public var extras: RowExtras? = nil
}

/// The data-binding part of a spec with `source`.
///
/// A class, not a struct: every record written looks its spec's binding up (to match, to make
/// the row, to see which collection a claim came from), and a struct's copy retained and released
/// each of its nine members there — 2.4% of a 1,000,000-record import's samples (`perf`).
public final class DataBinding: Sendable {
    /// The collection the spec reads.
    public let source: String
    /// `where`: field paths and the values they must equal.
    public let filter: [(path: FieldPath, value: JSONValue)]
    /// `groupBy`: one section per distinct value of this field.
    public let groupBy: FieldPath?
    /// How the `groupBy` sections are ordered.
    public let sectionOrder: SectionOrder
    /// Group keys hidden in the default view.
    public let hiddenByDefault: [String]
    /// Row order within a section (ties broken by id).
    public let sortBy: [SortField]
    /// The row template (`row`).
    public let row: RowTemplate
    /// `typeField`: the record field choosing a `rowTypes` entry.
    public let typeField: FieldPath?
    /// `rowTypes` entries already merged over `row`.
    public let rowTypes: [CodePointKey: RowTemplate]

    init(source: String, filter: [(path: FieldPath, value: JSONValue)], groupBy: FieldPath?, sectionOrder: SectionOrder,
         hiddenByDefault: [String], sortBy: [SortField], row: RowTemplate, typeField: FieldPath?, rowTypes: [CodePointKey: RowTemplate]) {
        self.source = source
        self.filter = filter
        self.groupBy = groupBy
        self.sectionOrder = sectionOrder
        self.hiddenByDefault = hiddenByDefault
        self.sortBy = sortBy
        self.row = row
        self.typeField = typeField
        self.rowTypes = rowTypes
    }

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
        return (rowTypes[CodePointKey(t)] ?? row, t)
    }

    /// The record's `typeField` value when it is a string (`nil`: the default `row` type).
    @inline(__always)
    func rowType(for record: JSONObject) -> String? {
        guard let tf = typeField, case .string(let t)? = tf.lookup(in: record) else { return nil }
        return t
    }
}

/// One entry of a list definition's `sections` array: literal or data-bound.
public struct SectionSpec: Sendable {
    /// What a spec's rows come from.
    public enum Content: Sendable {
        /// Rows written out in the definition (`rows`).
        case literal([LiteralRow])
        /// Rows made from the records of a collection (`source`).
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
    /// The section icon template, if any.
    public let icon: Template?
    /// The section header, if any.
    public let header: SupplementarySpec?
    /// The section footer, if any.
    public let footer: SupplementarySpec?
    /// The section's edge insets.
    public let insets: Insets
    /// Spacing between rows, points.
    public let lineSpacing: Double
    /// `hidden: true` — hidden in the default view (not allowed with `groupBy`).
    public let hidden: Bool
    /// Accessibility identifiers, if asked for.
    public let accessibility: AccessibilitySpec?
    /// Literal rows or a data binding.
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
