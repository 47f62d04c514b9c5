/// What `sectional check` says of one section spec: what the data makes of it, and what in the
/// data looks like a mistake in the definition.
public struct SpecReport: Sendable, Equatable {
    /// Position in the definition's `sections`.
    public let index: Int
    /// The collection a data spec reads (`nil` for literal rows).
    public let source: String?
    /// Sections the spec produced.
    public let sections: Int
    /// Rows the spec owns (a record claimed by an earlier spec counts there).
    public let rows: Int
    /// One sentence per finding, empty when none.
    public let warnings: [String]

    /// A template field is reported when at least this share of the spec's records lacks it
    /// (absent or `null`); fewer look like optional data, which templates are made to handle.
    public static let missingShare = 0.1

    /// This report with `more` warnings after its own.
    public func adding(warnings more: [String]) -> SpecReport {
        SpecReport(index: index, source: source, sections: sections, rows: rows, warnings: warnings + more)
    }
}

extension ListSnapshot {
    /// One report per spec: counts from this snapshot, warnings from `records` (the snapshot's
    /// input, by collection). Warnings, for records a data spec takes (its `where` holds):
    /// - records whose `groupBy` value renders as `""` (they form a section with an empty key);
    /// - row template fields absent or `null` in at least ``SpecReport/missingShare`` of the
    ///   records drawn with that template (a row type's template, for records of that type),
    ///   unless every use has a formatter for missing values (``Template/expectedFields``);
    /// - `sortBy` fields holding values of more than one JSON type (without `as`), or values
    ///   that do not read as the `as` type (they sort last).
    ///
    /// Cost: O(records × (templates + sort fields)); for `sectional check`, never a request.
    public func specReports(records: [String: [JSONValue]]) -> [SpecReport] {
        var sectionsBySpec = [Int](repeating: 0, count: definition.sections.count)
        var rowsBySpec = [Int](repeating: 0, count: definition.sections.count)
        for node in sections {
            sectionsBySpec[node.spec] += 1
            rowsBySpec[node.spec] += node.rows.count
        }
        return definition.sections.map { spec in
            let warnings = spec.binding.map { Self.findings(binding: $0, records: records[$0.source] ?? []) } ?? []
            return SpecReport(index: spec.index, source: spec.binding?.source, sections: sectionsBySpec[spec.index],
                              rows: rowsBySpec[spec.index], warnings: warnings)
        }
    }

    private static func findings(binding: DataBinding, records: [JSONValue]) -> [String] {
        let taken: [JSONObject] = records.compactMap {
            guard case .object(let o) = $0, case .string? = o["id"], binding.matches(o) else { return nil }
            return o
        }
        guard !taken.isEmpty else { return [] }
        var warnings: [String] = []
        let of = "of \(counted(taken.count, "record"))"
        if let group = binding.groupBy {
            let empty = taken.count { plainText(group.lookup(in: $0)).isEmpty }
            if empty > 0 { warnings.append("\(empty) \(of) have an empty group key (groupBy \"\(group)\")") }
        }
        // Each record against the fields of the row template it is drawn with (its row type's),
        // counted per template: a field most records of one type lack is reported even when the
        // other templates' records have it. A type with no template of its own is drawn with `row`.
        // Row types by code points, as rows take their templates.
        struct Use: Hashable { var rowType: CodePointKey?; var field: FieldPath }
        var uses: [Use] = []
        var counts: [Use: (missing: Int, using: Int)] = [:]
        var expected: [CodePointKey?: [FieldPath]] = [:]
        for record in taken {
            let (template, type) = binding.template(for: record)
            let rowType: CodePointKey? = binding.rowTypes[CodePointKey(type)] != nil ? CodePointKey(type) : nil
            let used = expected[rowType] ?? template.expectedFields
            expected[rowType] = used
            for field in used {
                let use = Use(rowType: rowType, field: field)
                if counts[use] == nil { uses.append(use) }
                let absent = field.lookup(in: record).map { $0 == .null } ?? true
                counts[use, default: (0, 0)].using += 1
                if absent { counts[use, default: (0, 0)].missing += 1 }
            }
        }
        for use in uses {
            guard let (missing, using) = counts[use] else { continue }
            if missing > 0, Double(missing) >= SpecReport.missingShare * Double(using) {
                let of = use.rowType.map { " of row type \"\($0.string)\"" } ?? ""
                warnings.append("template field \"\(use.field)\"\(of) is missing from \(missing) of \(counted(using, "record"))")
            }
        }
        for sort in binding.sortBy {
            let values = taken.compactMap { sort.path.lookup(in: $0) }.filter { $0 != .null }
            if let type = sort.type {
                let unread = values.count { type.sortValue($0) == .missing }
                if unread > 0 { warnings.append("\(unread) \(of) have a sortBy \"\(sort.path)\" value that does not read as \(type.rawValue) (they sort last)") }
            } else {
                var kinds: [String: Int] = [:]
                for value in values { kinds[value.kindName, default: 0] += 1 }
                if kinds.count > 1 {
                    let mix = kinds.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                    warnings.append("sortBy \"\(sort.path)\" holds values of mixed types (\(mix)); \"as\" compares them as one type")
                }
            }
        }
        return warnings
    }
}

extension RowTemplate {
    /// The record fields its templates insert as they are (``Template/expectedFields``), in
    /// order of first use.
    var expectedFields: [FieldPath] {
        var found: [FieldPath] = []
        for template in [title, subtitle, detail, icon, badge, action].compactMap({ $0 }) + (extras?.templates ?? []) {
            for field in template.expectedFields where !found.contains(field) { found.append(field) }
        }
        return found
    }
}

extension Template {
    /// The record fields the template inserts as they are, in order of first use: a field whose
    /// formatters include one written for a value that may be missing (`default:`, `prefix:`,
    /// `suffix:`, `nonzero`) is meant to be optional there and is left out.
    var expectedFields: [FieldPath] {
        var found: [FieldPath] = []
        for case .field(let field) in segments where !found.contains(field.path) {
            let optional = field.formatters.contains {
                switch $0 {
                case .defaultText, .prefix, .suffix, .nonzero: return true
                default: return false
                }
            }
            if !optional { found.append(field.path) }
        }
        return found
    }
}

extension JSONValue {
    /// The JSON type's name, plural, for messages.
    fileprivate var kindName: String {
        switch self {
        case .null: return "nulls"
        case .bool: return "booleans"
        case .int, .double, .number: return "numbers"
        case .string: return "strings"
        case .array: return "arrays"
        case .object: return "objects"
        }
    }
}
