import ListModel
import XCTest

/// A list's `search` and `filters`: decoded strictly, like the rest of a definition.
final class SearchDefinitionTests: XCTestCase {
    func testSearchFieldsAndFiltersAreDecoded() throws {
        let defs = try ListDefinitions.decode(parse(#"""
        { "l": { "search": { "fields": ["name", "address.city"] }, "filters": ["team"], "sections": [] },
          "m": { "sections": [] } }
        """#))
        XCTAssertEqual(defs[0].search?.map(\.description), ["name", "address.city"])
        XCTAssertEqual(defs[0].filters.map(\.description), ["team"])
        XCTAssertNil(defs[1].search, "a list without search takes no q")
        XCTAssertEqual(defs[1].filters, [])
    }

    func testUnknownKeysAndBadFieldsAreRefusedWithTheirPaths() {
        let errors = definitionErrors(#"""
        { "a": { "search": { "fields": ["name"], "boost": 2 }, "sections": [] },
          "b": { "search": { "fields": [] }, "filters": ["ok", "", "ok"], "sections": [] },
          "c": { "search": { }, "filters": "team", "sections": [] },
          "d": { "search": ["name"], "sections": [] },
          "e": { "search": { "fields": ["a..b", 3] }, "sections": [] } }
        """#)
        let got = Set(errors.map { "\($0.path): \($0.message)" })
        let expected: Set<String> = [
            "lists.a.search.boost: unknown key",
            "lists.b.search.fields: must name at least one field",
            "lists.b.filters[1]: expected a field path like \"a\" or \"a.b\"",
            "lists.b.filters[2]: duplicate \"ok\"",
            "lists.c.search.fields: missing (required)",
            "lists.c.filters: expected an array of strings, got string",
            "lists.d.search: expected an object, got array",
            "lists.e.search.fields[0]: expected a field path like \"a\" or \"a.b\"",
            "lists.e.search.fields[1]: expected a string, got number",
        ]
        XCTAssertEqual(got, expected, "\(got.subtracting(expected)) / \(expected.subtracting(got))")
    }
}
