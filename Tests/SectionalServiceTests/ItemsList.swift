import ListModel
@testable import SectionalService

/// The smallest list the cache tests build states of: one section, `all`, with a row per record
/// of collection `items` titled by its id.
enum ItemsList {
    /// Its definition; nil if it does not decode (the tests then fail on unwrapping it).
    static let definition: ListDefinition? = {
        let lists = #"{"items": {"sections": [{"key": "all", "source": "items", "type": "all", "title": "All", "row": {"type": "item", "title": "{id}"}}]}}"#
        guard let json = try? JSONParser.parse(lists) else { return nil }
        return try? ListDefinitions.decode(json).first
    }()
}
