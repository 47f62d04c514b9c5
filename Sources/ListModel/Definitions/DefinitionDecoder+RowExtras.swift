import JSONOutput

extension DefinitionDecoder {
    /// The members of ``RowExtras`` a row (template or literal) may have.
    static let rowExtrasKeys: Set<String> = ["image", "accessory", "enabled", "value", "actions", "data"]

    /// A `row` template's or `rowTypes` entry's extras, each member given replacing `base`'s.
    /// `literal`: a literal row's (texts are not templates, `enabled`/`value` are booleans, no
    /// `data`: there is no record).
    mutating func rowExtras(_ o: JSONObject, _ path: String, base: RowExtras?, literal: Bool = false) -> RowExtras? {
        var image = base?.image, accessory = base?.accessory, enabled = base?.enabled, value = base?.value
        var actions = base?.actions ?? [], data = base?.data
        if o["image"] != nil { image = rowText(o, "image", path, literal: literal) }
        if o["accessory"] != nil {
            accessory = rowText(o, "accessory", path, literal: literal)
            if let a = accessory, a.isConstant, RowAccessory(rawValue: a.render(record: JSONObject())) == nil {
                error("\(path).accessory", RowAccessory.expected + (literal ? "" : ", or a template rendering one"))
            }
        }
        if o["enabled"] != nil { enabled = flag(o, "enabled", path, literal: literal) }
        if o["value"] != nil { value = flag(o, "value", path, literal: literal) }
        if o["actions"] != nil { actions = self.actions(o, path, literal: literal) }
        if o["data"] != nil, !literal {   // a literal row's `data` is reported as misplaced
            if stringArray(o, "data", path) != nil, case .array(let items)? = o["data"] {
                var fields: [FieldPath] = []
                for (i, item) in items.enumerated() {
                    guard case .string(let name) = item else { continue }
                    if let f = FieldPath(name) { fields.append(f) } else { error("\(path).data[\(i)]", "expected a field path like \"a\" or \"a.b\"") }
                }
                data = fields
            }
        }
        return RowExtras.make(image: image, accessory: accessory, enabled: enabled, value: value, actions: actions, data: data)
    }

    /// A text member: a row template, or (literal rows) the text itself.
    private mutating func rowText(_ o: JSONObject, _ key: String, _ path: String, literal: Bool) -> Template? {
        guard literal else { return template(o, key, path, scope: .row) }
        return string(o, key, path).map(Template.init(literal:))
    }

    /// `enabled` / `value`: a boolean, or (data-bound rows) a template rendering `true` or `false`.
    private mutating func flag(_ o: JSONObject, _ key: String, _ path: String, literal: Bool) -> Template? {
        guard let v = o[key] else { return nil }
        if case .bool(let b) = v { return Template(literal: b ? "true" : "false") }
        guard !literal, case .string = v else {
            error("\(path).\(key)", literal ? "expected a boolean, got \(v.typeName)" : "expected a boolean or a template, got \(v.typeName)")
            return nil
        }
        guard let t = template(o, key, path, scope: .row) else { return nil }
        if t.isConstant, t.source != "true", t.source != "false" {
            error("\(path).\(key)", "expected true, false or a template rendering one of them")
            return nil
        }
        return t
    }

    /// `actions`: `[{"id", "title", "style"}]`; ids unique within the row, `style` `default` or `destructive`.
    private mutating func actions(_ o: JSONObject, _ path: String, literal: Bool) -> [RowAction] {
        let p = "\(path).actions"
        guard let v = o["actions"] else { return [] }
        guard case .array(let items) = v else {
            error(p, "expected an array of {\"id\", \"title\", \"style\"}, got \(v.typeName)")
            return []
        }
        var out: [RowAction] = []
        var ids: Set<String> = []
        for (i, item) in items.enumerated() {
            let ap = "\(p)[\(i)]"
            guard let a = object(item, ap) else { continue }
            checkKeys(a, ["id", "title", "style"], ap)
            let id = string(a, "id", ap, required: true)
            if let id {
                if !Names.isValid(id) { error("\(ap).id", "invalid action id (must match ^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$)") }
                else if !ids.insert(id).inserted { error("\(ap).id", "duplicate action id \"\(id)\" in this row") }
            }
            if a["title"] == nil { error("\(ap).title", "missing (required)") }
            let title = a["title"] == nil ? nil : rowText(a, "title", ap, literal: literal)
            var style = RowAction.Style.default
            if let s = string(a, "style", ap) {
                if let known = RowAction.Style(rawValue: s) { style = known } else { error("\(ap).style", "expected \"default\" or \"destructive\"") }
            }
            if let id, let title { out.append(RowAction(id: id, title: title, style: style)) }
        }
        return out
    }
}
