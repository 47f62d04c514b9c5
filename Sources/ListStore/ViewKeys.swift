import ListModel

/// Strings stored as one JSON array in a text column: a view's hidden section keys, and the
/// webhook names an outbox query is given.
enum ViewKeys {
    static func encode(_ keys: [String]) -> String {
        var writer = JSONWriter(capacity: 16 + keys.reduce(0) { $0 + $1.utf8.count + 3 })
        writer.beginArray()
        for key in keys { writer.string(key) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The keys; none when the text is not an array (it always is: only ``encode(_:)`` writes it).
    static func decode(_ text: String) -> [String] {
        guard let values = (try? JSONParser.parse(text))?.arrayValue else { return [] }
        return values.compactMap(\.stringValue)
    }
}
