import JSONOutput

/// Validating decoder of list definitions; collects every error with its JSON path.
struct DefinitionDecoder {
    var errors: [DefinitionError] = []
    /// The `keyLabels` of the section spec being decoded (for templates' `label`).
    var keyLabels: [CodePointKey: String] = [:]
    /// How `number`, `currency` and `date` formatters write (the language decoded for).
    var formats: LocaleFormats = .english
    /// Resolves a list's `timeZone` name (nil: unknown name).
    var zones: (String) -> TimeZoneOffsets? = TimeZoneOffsets.builtIn
    /// The zone of the list being decoded (for templates' `date`).
    var zone: TimeZoneOffsets = .utc

    mutating func error(_ path: String, _ message: String) {
        errors.append(DefinitionError(path: path, message: message))
    }

    // MARK: Primitive readers

    mutating func object(_ v: JSONValue, _ path: String) -> JSONObject? {
        if case .object(let o) = v { return o }
        error(path, "expected an object, got \(v.typeName)")
        return nil
    }

    /// Reports members of `obj` that are not in `allowed`; `misplaced` explains known keys
    /// that are not valid here.
    mutating func checkKeys(_ obj: JSONObject, _ allowed: Set<String>, _ path: String, misplaced: [String: String] = [:]) {
        for m in obj.members where !allowed.contains(m.key) {
            error("\(path).\(m.key)", misplaced[m.key] ?? "unknown key")
        }
    }

    mutating func string(_ obj: JSONObject, _ key: String, _ path: String, required: Bool = false) -> String? {
        guard let v = obj[key] else {
            if required { error("\(path).\(key)", "missing (required)") }
            return nil
        }
        guard case .string(let s) = v else { error("\(path).\(key)", "expected a string, got \(v.typeName)"); return nil }
        return s
    }

    mutating func bool(_ obj: JSONObject, _ key: String, _ path: String) -> Bool? {
        guard let v = obj[key] else { return nil }
        guard case .bool(let b) = v else { error("\(path).\(key)", "expected a boolean, got \(v.typeName)"); return nil }
        return b
    }

    /// A finite number ≥ 0; `-0` is 0 (served as `0`, not `-0`).
    mutating func nonNegativeNumber(_ obj: JSONObject, _ key: String, _ path: String) -> Double? {
        guard let v = obj[key] else { return nil }
        guard let d = v.doubleValue, d.isFinite else { error("\(path).\(key)", "expected a number, got \(v.typeName)"); return nil }
        guard d >= 0 else { error("\(path).\(key)", "must not be negative"); return nil }
        return d + 0  // -0 + 0 is +0
    }

    /// An integer in 0…1,000,000.
    mutating func tagLength(_ obj: JSONObject, _ path: String) -> Int? {
        guard let v = obj["tagLength"] else { return nil }
        guard let i = v.intValue else {
            // A whole number too large for 64 bits is out of range, not a fraction.
            if let d = v.doubleValue, d.rounded() == d { error("\(path).tagLength", "must be in 0…1000000"); return nil }
            error("\(path).tagLength", "expected an integer, got \(v.isNumber ? "a fraction" : v.typeName)")
            return nil
        }
        guard i >= 0, i <= 1_000_000 else { error("\(path).tagLength", "must be in 0…1000000"); return nil }
        return Int(i)
    }

    mutating func template(_ obj: JSONObject, _ key: String, _ path: String, scope: Template.Scope) -> Template? {
        guard let s = string(obj, key, path) else { return nil }
        do throws(TemplateError) {
            return try Template(parsing: s, scope: scope, formats: formats, labels: keyLabels, zone: zone)
        } catch {
            self.error("\(path).\(key)", "bad template: \(error.message)")
            return nil
        }
    }

    mutating func fieldPath(_ obj: JSONObject, _ key: String, _ path: String) -> FieldPath? {
        guard let s = string(obj, key, path) else { return nil }
        guard let p = FieldPath(s) else { error("\(path).\(key)", "expected a field path like \"a\" or \"a.b\""); return nil }
        return p
    }

    mutating func stringArray(_ obj: JSONObject, _ key: String, _ path: String) -> [String]? {
        guard let v = obj[key] else { return nil }
        guard case .array(let a) = v else { error("\(path).\(key)", "expected an array of strings, got \(v.typeName)"); return nil }
        var out: [String] = []
        var seen: Set<CodePointKey> = []
        for (i, e) in a.enumerated() {
            guard case .string(let s) = e else { error("\(path).\(key)[\(i)]", "expected a string, got \(e.typeName)"); continue }
            if !seen.insert(CodePointKey(s)).inserted { error("\(path).\(key)[\(i)]", "duplicate \"\(s)\"") }
            out.append(s)
        }
        return out
    }

    // MARK: List

    /// Decodes list `name`. Language maps are resolved for `language` (nil: the list's first
    /// language, and the maps are validated); a `language` also enters the fingerprint.
    mutating func list(name: String, _ json: JSONValue, path: String, language: String? = nil) -> ListDefinition? {
        let before = errors.count
        if !Names.isValid(name) { error(path, "invalid list name (must match ^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$)") }
        guard let written = object(json, path) else { return nil }
        let languages = self.languages(written, path)
        let obj = resolveLanguageMaps(written, languages: languages, language: language ?? languages[0], path: path,
                                      validate: language == nil)
        checkKeys(obj, ["title", "sections", "access", "scope", "languages", "timeZone", "search", "filters"], path)
        let title = string(obj, "title", path)
        zone = timeZone(obj, path)
        defer { zone = .utc }
        let scope = listScope(obj, path)
        let search = listSearch(obj, path)
        let filters = listFilters(obj, path)
        var access = ListAccess.public
        if let text = string(obj, "access", path) {
            if let value = ListAccess(rawValue: text) { access = value } else { error("\(path).access", "expected \"public\" or \"users\"") }
            if scope != nil && access == .public { error("\(path).access", "a list with a scope is read by users only (\"users\")") }
        }
        if scope != nil { access = .users }
        var specs: [SectionSpec] = []
        if let sv = obj["sections"] {
            if case .array(let arr) = sv {
                var ctx = ListContext()
                for (i, e) in arr.enumerated() {
                    if let s = section(e, index: i, path: "\(path).sections[\(i)]", ctx: &ctx) { specs.append(s) }
                }
            } else {
                error("\(path).sections", "expected an array, got \(sv.typeName)")
            }
        } else {
            error("\(path).sections", "missing (required)")
        }
        guard errors.count == before else { return nil }
        var h = FNV1a()
        h.combine(name)
        h.combine(canonicalJSON(json))
        if let language { h.combine(language) }
        return ListDefinition(name: name, title: title, sections: specs, fingerprint: h.value, access: access, scope: scope,
                              source: json, languages: languages, language: language ?? languages[0], timeZone: zone,
                              search: search, filters: filters)
    }

    /// `search: {"fields": ["name", "email"]}`: the fields `?q=` looks in (at least one).
    mutating func listSearch(_ obj: JSONObject, _ path: String) -> [FieldPath]? {
        guard let json = obj["search"] else { return nil }
        let p = "\(path).search"
        guard let o = object(json, p) else { return nil }
        checkKeys(o, ["fields"], p)
        guard o["fields"] != nil else { error("\(p).fields", "missing (required)"); return nil }
        let fields = fieldPaths(o, "fields", p)
        if case .array(let written)? = o["fields"], written.isEmpty { error("\(p).fields", "must name at least one field") }
        return fields
    }

    /// `filters: ["status", "team"]`: the fields `?filter.FIELD=VALUE` may compare.
    mutating func listFilters(_ obj: JSONObject, _ path: String) -> [FieldPath] {
        guard obj["filters"] != nil else { return [] }
        return fieldPaths(obj, "filters", path) ?? []
    }

    /// An array of distinct field paths.
    mutating func fieldPaths(_ obj: JSONObject, _ key: String, _ path: String) -> [FieldPath]? {
        guard let texts = stringArray(obj, key, path) else { return nil }
        var paths: [FieldPath] = []
        for (i, text) in texts.enumerated() {
            if let p = FieldPath(text) { paths.append(p) } else { error("\(path).\(key)[\(i)]", "expected a field path like \"a\" or \"a.b\"") }
        }
        return paths
    }

    /// `timeZone`: an IANA zone name the `date` formatter writes local time in (default UTC).
    mutating func timeZone(_ obj: JSONObject, _ path: String) -> TimeZoneOffsets {
        guard let name = string(obj, "timeZone", path) else { return .utc }
        guard let resolved = zones(name) else {
            error("\(path).timeZone", "unknown time zone \"\(name)\" (use an IANA name such as \"Europe/Berlin\")")
            return .utc
        }
        return resolved
    }

    /// `scope: {"field": "owner", "claim": "sub"}`; `claim` defaults to `sub`.
    mutating func listScope(_ obj: JSONObject, _ path: String) -> ListScope? {
        guard let json = obj["scope"] else { return nil }
        let p = "\(path).scope"
        guard let o = object(json, p) else { return nil }
        checkKeys(o, ["field", "claim"], p)
        let claim = string(o, "claim", p) ?? "sub"
        if claim.isEmpty { error("\(p).claim", "must not be empty") }
        guard o["field"] != nil else { error("\(p).field", "missing (required)"); return nil }
        guard let field = fieldPath(o, "field", p) else { return nil }
        return ListScope(field: field, claim: claim)
    }

    /// What a list's specs have claimed so far (static uniqueness checks).
    struct ListContext {
        var keys: Set<CodePointKey> = []
        var literalIds: Set<String> = []
    }

    // MARK: Section

    static let commonKeys: Set<String> = ["key", "type", "title", "icon", "header", "footer", "insets", "lineSpacing", "hidden", "accessibility", "keyLabels"]
    static let literalOnly: Set<String> = ["rows"]
    static let dataOnly: Set<String> = ["source", "where", "groupBy", "sectionOrder", "hiddenByDefault", "sortBy", "row", "typeField", "rowTypes"]

    mutating func section(_ json: JSONValue, index: Int, path: String, ctx: inout ListContext) -> SectionSpec? {
        guard let obj = object(json, path) else { return nil }
        let before = errors.count
        let isData = obj["source"] != nil
        var misplaced: [String: String] = [:]
        if isData {
            for k in DefinitionDecoder.literalOnly { misplaced[k] = "not allowed in a data-bound section (one with \"source\")" }
            checkKeys(obj, DefinitionDecoder.commonKeys.union(DefinitionDecoder.dataOnly), path, misplaced: misplaced)
        } else {
            for k in DefinitionDecoder.dataOnly { misplaced[k] = "only allowed in a data-bound section (one with \"source\")" }
            checkKeys(obj, DefinitionDecoder.commonKeys.union(DefinitionDecoder.literalOnly), path, misplaced: misplaced)
        }

        let grouped = isData && obj["groupBy"] != nil
        var key = string(obj, "key", path)
        if grouped, key != nil {
            error("\(path).key", "not allowed together with groupBy (each group's value is its key)")
            key = nil
        } else if !grouped, key == nil, obj["key"] == nil {
            error("\(path).key", isData ? "missing (required without groupBy)" : "missing (required)")
        }
        if let k = key, !ctx.keys.insert(CodePointKey(k)).inserted {
            error("\(path).key", "duplicate section key \"\(k)\" (section keys are unique within a list)")
        }
        keyLabels = labels(obj, path)
        defer { keyLabels = [:] }
        let type = string(obj, "type", path) ?? ""
        let title = template(obj, "title", path, scope: .section) ?? Template(literal: "")
        let icon = template(obj, "icon", path, scope: .section)
        let header = supplementary(obj, "header", path)
        let footer = supplementary(obj, "footer", path)
        let insets = self.insets(obj, path)
        let lineSpacing = nonNegativeNumber(obj, "lineSpacing", path) ?? 0
        let hidden = bool(obj, "hidden", path) ?? false
        if grouped, obj["hidden"] != nil {
            error("\(path).hidden", "not allowed together with groupBy; list keys in hiddenByDefault instead")
        }
        let acc = accessibility(obj, path)

        var content: SectionSpec.Content = .literal([])
        var literalRows: [Row] = []
        if isData {
            if let b = binding(obj, path) { content = .data(b) }
        } else if let rv = obj["rows"] {
            if case .array(let arr) = rv {
                var rows: [LiteralRow] = []
                for (i, e) in arr.enumerated() {
                    if let r = literalRow(e, "\(path).rows[\(i)]", ctx: &ctx) { rows.append(r) }
                }
                content = .literal(rows)
                literalRows = rows.enumerated().map { RowFactory.literalRow($0.element, position: $0.offset) }
            } else {
                error("\(path).rows", "expected an array, got \(rv.typeName)")
            }
        }
        guard errors.count == before else { return nil }
        var accPrefix: [UInt8] = []
        if let acc {
            accPrefix = Array(",\"accessibilityIdentifier\":".utf8)
            JSONWriter.appendEscaped(acc.identifier, to: &accPrefix)
            accPrefix.removeLast()   // the closing quote comes after the suffixes
        }
        return SectionSpec(index: index, key: key, type: type, title: title, icon: icon, header: header, footer: footer,
                           insets: insets, lineSpacing: lineSpacing, hidden: hidden, accessibility: acc, content: content,
                           literalRows: literalRows, accessibilityPrefix: accPrefix)
    }

    mutating func supplementary(_ obj: JSONObject, _ key: String, _ path: String) -> SupplementarySpec? {
        guard let v = obj[key] else { return nil }
        let p = "\(path).\(key)"
        guard let o = object(v, p) else { return nil }
        checkKeys(o, ["title", "height"], p)
        let title = template(o, "title", p, scope: .section) ?? Template(literal: "")
        let height = nonNegativeNumber(o, "height", p) ?? 28
        return SupplementarySpec(title: title, height: height)
    }

    mutating func insets(_ obj: JSONObject, _ path: String) -> Insets {
        guard let v = obj["insets"] else { return Insets() }
        let p = "\(path).insets"
        guard let o = object(v, p) else { return Insets() }
        checkKeys(o, ["top", "left", "bottom", "right"], p)
        return Insets(top: nonNegativeNumber(o, "top", p) ?? 0, left: nonNegativeNumber(o, "left", p) ?? 0,
                      bottom: nonNegativeNumber(o, "bottom", p) ?? 0, right: nonNegativeNumber(o, "right", p) ?? 0)
    }

    mutating func accessibility(_ obj: JSONObject, _ path: String) -> AccessibilitySpec? {
        guard let v = obj["accessibility"] else { return nil }
        let p = "\(path).accessibility"
        guard let o = object(v, p) else { return nil }
        checkKeys(o, ["identifier", "options"], p)
        let id = string(o, "identifier", p, required: true)
        if let id, id.isEmpty { error("\(p).identifier", "must not be empty") }
        let options = stringArray(o, "options", p) ?? []
        for (i, opt) in options.enumerated() where opt != "section" && opt != "row" {
            error("\(p).options[\(i)]", "unknown option \"\(opt)\" (use \"section\" and/or \"row\")")
        }
        guard let id, !id.isEmpty else { return nil }
        return AccessibilitySpec(identifier: id, includesSection: options.contains("section"), includesRow: options.contains("row"))
    }

    static let literalRowKeys: Set<String> = ["id", "type", "title", "subtitle", "icon", "detail", "badge", "tagLength", "height", "action",
                                              "image", "accessory", "enabled", "value", "actions"]

    mutating func literalRow(_ json: JSONValue, _ path: String, ctx: inout ListContext) -> LiteralRow? {
        guard let o = object(json, path) else { return nil }
        let before = errors.count
        checkKeys(o, DefinitionDecoder.literalRowKeys, path,
                  misplaced: ["data": "only allowed in a data-bound row (a literal row has no record)"])
        let id = string(o, "id", path, required: true)
        if let id {
            if !Names.isValid(id) { error("\(path).id", "invalid row id (must match ^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$)") }
            else if !ctx.literalIds.insert(id).inserted { error("\(path).id", "duplicate literal row id \"\(id)\"") }
        }
        let row = LiteralRow(id: id ?? "", type: string(o, "type", path) ?? "", title: string(o, "title", path) ?? "",
                             subtitle: string(o, "subtitle", path), detail: string(o, "detail", path),
                             icon: string(o, "icon", path), badge: string(o, "badge", path), action: string(o, "action", path),
                             tagLength: tagLength(o, path) ?? 1, height: nonNegativeNumber(o, "height", path) ?? 44,
                             extras: rowExtras(o, path, base: nil, literal: true))
        return errors.count == before ? row : nil
    }
}

/// JSON text with object members sorted by name (code points): a canonical form for hashing.
func canonicalJSON(_ v: JSONValue) -> [UInt8] {
    var w = JSONWriter()
    func write(_ v: JSONValue) {
        switch v {
        case .object(let o):
            w.beginObject()
            for m in o.members.sorted(by: { codePointLess($0.key, $1.key) }) { w.key(m.key); write(m.value) }
            w.endObject()
        case .array(let a):
            w.beginArray()
            for e in a { write(e) }
            w.endArray()
        default:
            w.value(v)
        }
    }
    write(v)
    return w.bytes
}
