extension DefinitionDecoder {
    /// A section spec's `keyLabels`: an object of key → display text, which the `label`
    /// formatter maps values through (`{"open": "Open orders"}`). Keys compare by code points,
    /// as section keys do: two names Swift's `String` holds equal (`"é"` and `"e\u{301}"`) are two keys.
    mutating func labels(_ obj: JSONObject, _ path: String) -> [CodePointKey: String] {
        guard let v = obj["keyLabels"] else { return [:] }
        let p = "\(path).keyLabels"
        guard let o = object(v, p) else { return [:] }
        var labels: [CodePointKey: String] = [:]
        for m in o.members {
            guard case .string(let text) = m.value else {
                error("\(p).\(m.key)", "expected a string, got \(m.value.typeName)")
                continue
            }
            labels[CodePointKey(m.key)] = text
        }
        return labels
    }
}

extension DefinitionDecoder {
    /// A `sortBy` rule's `as`: `"number"`, `"string"` or `"date"`.
    mutating func sortType(_ obj: JSONObject, _ path: String) -> SortType? {
        guard let v = obj["as"] else { return nil }
        guard case .string(let name) = v, let type = SortType(rawValue: name) else {
            error("\(path).as", "expected \"number\", \"string\" or \"date\"")
            return nil
        }
        return type
    }
}
