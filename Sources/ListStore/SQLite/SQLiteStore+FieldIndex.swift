import ListModel

/// The SQL of prepared fields' indexes: their names and the expression they index.
extension SQLiteStore {
    /// The name of the expression index on `field` over every collection (earlier versions made
    /// it; ``prepareField(_:in:)`` drops it).
    static func indexName(_ field: FieldPath) -> String {
        var hash = FNV1a()
        hash.combine(field.description)
        return "records_field_\(String(hash.value, radix: 16))"
    }

    /// The name of the partial expression index on `field` over the records of `collection`.
    static func indexName(_ field: FieldPath, in collection: String) -> String {
        var hash = FNV1a()
        hash.combine(collection)
        hash.combine("\u{0}")
        hash.combine(field.description)
        return "records_field_in_\(String(hash.value, radix: 16))"
    }

    /// `text` as an SQL string literal.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The SQL expression for a record's value at `field` (the JSON is stored as a BLOB, which
    /// `json_extract` reads as text), or nil when a member name cannot be quoted in a JSON path.
    static func fieldExpression(_ field: FieldPath) -> String? {
        guard field.components.allSatisfy({ !$0.contains("\"") && !$0.contains("'") && !$0.contains("\\") }) else { return nil }
        let path = "$" + field.components.map { ".\"\($0)\"" }.joined()
        return "json_extract(CAST(json AS TEXT), '\(path)')"
    }
}
