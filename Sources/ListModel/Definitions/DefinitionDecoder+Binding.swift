/// A data-bound section's `source`, `where`, `groupBy`, `sectionOrder`, `sortBy` and row
/// templates (`row`, and `rowTypes` merged over it).
extension DefinitionDecoder {
    mutating func binding(_ obj: JSONObject, _ path: String) -> DataBinding? {
        let before = errors.count
        let source = string(obj, "source", path, required: true) ?? ""
        if obj["source"]?.stringValue != nil, !Names.isValid(source) {
            error("\(path).source", "invalid collection name (must match ^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$)")
        }
        var filter: [(path: FieldPath, value: JSONValue)] = []
        if let w = obj["where"], let wo = object(w, "\(path).where") {
            for m in wo.members {
                if let fp = FieldPath(m.key) { filter.append((fp, m.value)) }
                else { error("\(path).where.\(m.key)", "expected a field path like \"a\" or \"a.b\"") }
            }
        }
        let groupBy = fieldPath(obj, "groupBy", path)
        var order: SectionOrder = .ascending
        if let so = obj["sectionOrder"] {
            switch so {
            case .string("asc"): order = .ascending
            case .string("desc"): order = .descending
            case .array: order = .explicit(stringArray(obj, "sectionOrder", path) ?? [])
            default: error("\(path).sectionOrder", "expected \"asc\", \"desc\" or an array of keys")
            }
            if groupBy == nil, obj["groupBy"] == nil { error("\(path).sectionOrder", "only meaningful with groupBy") }
        }
        let hiddenByDefault = stringArray(obj, "hiddenByDefault", path) ?? []
        var sortBy: [SortField] = []
        if let sb = obj["sortBy"] {
            if case .array(let arr) = sb {
                // A page token holds a position's sort values: 64 of them fit its 1 KiB.
                if arr.count > PageToken.maxSortFields {
                    error("\(path).sortBy", "at most \(PageToken.maxSortFields) fields (it has \(arr.count))")
                }
                for (i, e) in arr.enumerated() {
                    let p = "\(path).sortBy[\(i)]"
                    guard let o = object(e, p) else { continue }
                    checkKeys(o, ["field", "order", "as"], p)
                    let f = fieldPath(o, "field", p)
                    if o["field"] == nil { error("\(p).field", "missing (required)") }
                    var desc = false
                    if let ov = o["order"] {
                        switch ov {
                        case .string("asc"): desc = false
                        case .string("desc"): desc = true
                        default: error("\(p).order", "expected \"asc\" or \"desc\"")
                        }
                    }
                    let type = sortType(o, p)
                    if let f { sortBy.append(SortField(path: f, descending: desc, type: type)) }
                }
            } else {
                error("\(path).sortBy", "expected an array of {\"field\", \"order\"}")
            }
        }
        var row: RowTemplate? = nil
        if let rv = obj["row"] {
            row = rowTemplate(rv, "\(path).row", base: nil)
        } else {
            error("\(path).row", "missing (required in a data-bound section)")
        }
        let typeField = fieldPath(obj, "typeField", path)
        var rowTypes: [CodePointKey: RowTemplate] = [:]
        if let rt = obj["rowTypes"] {
            if obj["typeField"] == nil { error("\(path).rowTypes", "needs typeField") }
            if let o = object(rt, "\(path).rowTypes") {
                // Checked over the row template, or a blank one when that has errors (or is
                // missing), so their own errors are reported with it.
                let base = row ?? Self.blankRow
                for m in o.members {
                    if var t = rowTemplate(m.value, "\(path).rowTypes.\(m.key)", base: base) {
                        t.type = m.key
                        rowTypes[CodePointKey(m.key)] = t
                    }
                }
            }
        }
        guard errors.count == before, let row else { return nil }
        return DataBinding(source: source, filter: filter, groupBy: groupBy, sectionOrder: order, hiddenByDefault: hiddenByDefault,
                           sortBy: sortBy, row: row, typeField: typeField, rowTypes: rowTypes)
    }

    static let rowTemplateKeys = Set(["type", "title", "subtitle", "detail", "icon", "badge", "tagLength", "height", "action"])
        .union(rowExtrasKeys)

    /// A row template's defaults, before its members are read.
    static let blankRow = RowTemplate(type: "", title: Template(literal: ""), subtitle: nil, detail: nil, icon: nil, badge: nil,
                                      action: nil, tagLength: 1, height: 44)

    /// A `row` (base == nil) or a `rowTypes` entry merged over `base`.
    mutating func rowTemplate(_ json: JSONValue, _ path: String, base: RowTemplate?) -> RowTemplate? {
        guard let o = object(json, path) else { return nil }
        let before = errors.count
        if base == nil {
            checkKeys(o, DefinitionDecoder.rowTemplateKeys, path)
        } else {
            checkKeys(o, DefinitionDecoder.rowTemplateKeys.subtracting(["type"]), path,
                      misplaced: ["type": "not allowed in rowTypes (the entry's name is the type)"])
        }
        var t = base ?? Self.blankRow
        if base == nil, let ty = string(o, "type", path) { t.type = ty }
        if let v = template(o, "title", path, scope: .row) { t.title = v }
        if o["subtitle"] != nil { t.subtitle = template(o, "subtitle", path, scope: .row) }
        if o["detail"] != nil { t.detail = template(o, "detail", path, scope: .row) }
        if o["icon"] != nil { t.icon = template(o, "icon", path, scope: .row) }
        if o["badge"] != nil { t.badge = template(o, "badge", path, scope: .row) }
        if o["action"] != nil { t.action = template(o, "action", path, scope: .row) }
        if let n = tagLength(o, path) { t.tagLength = n }
        if let h = nonNegativeNumber(o, "height", path) { t.height = h }
        t.extras = rowExtras(o, path, base: t.extras)
        return errors.count == before ? t : nil
    }
}
