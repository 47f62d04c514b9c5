/// Languages in definitions: a list's `languages` (BCP 47 tags, the first the fallback) and
/// language maps — `{"en": "Settings", "de": "Einstellungen"}` — wherever a display string goes:
/// the list's `title`; a section's `title`, `header.title` and `footer.title`; a literal row's
/// `title`, `subtitle`, `detail` and `badge`, and its actions' `title`; the same of a `row`
/// template and its `rowTypes`.
/// Each map is resolved per string before the definition is decoded: the text for the language
/// asked for, else the fallback's.
extension DefinitionDecoder {
    static let rowDisplayKeys = ["title", "subtitle", "detail", "badge"]

    /// `languages`: a non-empty array of distinct BCP 47 tags; `["en"]` when absent.
    mutating func languages(_ obj: JSONObject, _ path: String) -> [String] {
        guard obj["languages"] != nil else { return ["en"] }
        let p = "\(path).languages"
        guard let tags = stringArray(obj, "languages", path) else { return ["en"] }
        guard !tags.isEmpty else {
            error(p, "must name at least one language")
            return ["en"]
        }
        var seen: Set<String> = []
        for (i, tag) in tags.enumerated() {
            if !Self.isLanguageTag(tag) { error("\(p)[\(i)]", "not a BCP 47 language tag like \"en\" or \"de-CH\"") }
            if !seen.insert(tag.lowercased()).inserted, tags.filter({ $0 == tag }).count == 1 {
                error("\(p)[\(i)]", "duplicate language \"\(tag)\"")
            }
        }
        return tags
    }

    /// `language` (2–8 letters) then subtags of 1–8 letters or digits, joined by `-`.
    static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// `list` with every language map in a display-string position replaced by its text in
    /// `language`; when `validate`, reports maps that are empty, name a language the list does not
    /// declare, lack the fallback (the first language) or hold anything but strings.
    mutating func resolveLanguageMaps(_ list: JSONObject, languages: [String], language: String, path: String,
                                      validate: Bool) -> JSONObject {
        var list = list
        resolve(&list, "title", path, languages, language, validate)
        guard case .array(var sections)? = list["sections"] else { return list }
        for i in sections.indices {
            guard case .object(var section) = sections[i] else { continue }
            let p = "\(path).sections[\(i)]"
            resolve(&section, "title", p, languages, language, validate)
            for key in ["header", "footer"] {
                guard case .object(var supplementary)? = section[key] else { continue }
                resolve(&supplementary, "title", "\(p).\(key)", languages, language, validate)
                section[key] = .object(supplementary)
            }
            if case .object(var labels)? = section["keyLabels"] {
                for key in labels.keys { resolve(&labels, key, "\(p).keyLabels", languages, language, validate) }
                section["keyLabels"] = .object(labels)
            }
            if case .array(var rows)? = section["rows"] {
                for j in rows.indices {
                    guard case .object(var row) = rows[j] else { continue }
                    resolveRow(&row, "\(p).rows[\(j)]", languages, language, validate)
                    rows[j] = .object(row)
                }
                section["rows"] = .array(rows)
            }
            if case .object(var row)? = section["row"] {
                resolveRow(&row, "\(p).row", languages, language, validate)
                section["row"] = .object(row)
            }
            if case .object(let types)? = section["rowTypes"] {
                var resolved: [JSONObject.Member] = []
                for member in types.members {
                    guard case .object(var row) = member.value else { resolved.append(member); continue }
                    resolveRow(&row, "\(p).rowTypes.\(member.key)", languages, language, validate)
                    resolved.append((member.key, .object(row)))
                }
                section["rowTypes"] = .object(JSONObject(resolved))
            }
            sections[i] = .object(section)
        }
        list["sections"] = .array(sections)
        return list
    }

    /// Resolves a row's display strings (a literal row, a `row` template or a row type) and its
    /// actions' titles.
    private mutating func resolveRow(_ row: inout JSONObject, _ path: String, _ languages: [String], _ language: String,
                                     _ validate: Bool) {
        for key in Self.rowDisplayKeys { resolve(&row, key, path, languages, language, validate) }
        guard case .array(var actions)? = row["actions"] else { return }
        for k in actions.indices {
            guard case .object(var action) = actions[k] else { continue }
            resolve(&action, "title", "\(path).actions[\(k)]", languages, language, validate)
            actions[k] = .object(action)
        }
        row["actions"] = .array(actions)
    }

    /// Resolves `object[key]` when it is a language map.
    private mutating func resolve(_ object: inout JSONObject, _ key: String, _ path: String, _ languages: [String], _ language: String,
                                  _ validate: Bool) {
        guard case .object(let map)? = object[key] else { return }
        let p = "\(path).\(key)"
        let fallback = languages[0]
        if validate {
            if map.isEmpty { error(p, "a language map needs at least the fallback language \"\(fallback)\"") }
            var named: Set<String> = []
            for member in map.members {
                if !languages.contains(where: { $0.lowercased() == member.key.lowercased() }) {
                    error("\(p).\(member.key)", "language \"\(member.key)\" is not one of the list's languages \(languages)")
                }
                // Tags are compared ignoring case: "en" and "EN" would be one language with two
                // texts, the one served chosen by the members' order (which the fingerprint ignores).
                if !named.insert(member.key.lowercased()).inserted {
                    error("\(p).\(member.key)", "language \"\(member.key)\" is named twice (tags are compared ignoring case)")
                }
                if member.value.stringValue == nil { error("\(p).\(member.key)", "expected a string, got \(member.value.typeName)") }
            }
            if !map.isEmpty, !map.members.contains(where: { $0.key.lowercased() == fallback.lowercased() }) {
                error(p, "missing the fallback language \"\(fallback)\" (the first of the list's languages)")
            }
        }
        let text = map.members.first { $0.key.lowercased() == language.lowercased() }?.value.stringValue
            ?? map.members.first { $0.key.lowercased() == fallback.lowercased() }?.value.stringValue
            ?? ""
        object[key] = .string(text)
    }
}

extension DefinitionDecoder {
    /// Decodes definition `json` of list `name` in each of its other languages too, so a
    /// translated template that does not parse is an error now, not a surprise when someone
    /// reads the list in that language. A problem the first language reported (at the same path,
    /// the same message: a text every language shares) is not repeated; every other is.
    mutating func checkTranslations(name: String, _ json: JSONValue, path: String) {
        guard case .object(let written) = json else { return }
        var scratch = DefinitionDecoder()
        let languages = scratch.languages(written, path)
        let reported = Set(errors.map { $0.path + "\u{0}" + $0.message })
        for language in languages.dropFirst() {
            var d = DefinitionDecoder()
            d.zones = zones
            _ = d.list(name: name, json, path: path, language: language)
            for problem in d.errors where !reported.contains(problem.path + "\u{0}" + problem.message) {
                error(problem.path, "in \(language): \(problem.message)")
            }
        }
    }
}
