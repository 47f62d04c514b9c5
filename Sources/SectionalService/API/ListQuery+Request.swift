import HTTPServer
import ListModel

extension ListQuery {
    /// Whether a query parameter is a filter (`filter.FIELD`): filters are repeatable, and each
    /// one given must hold (`filter.team=A&filter.team=B` keeps no record).
    static func isFilter(_ name: String) -> Bool { name.hasPrefix(filterPrefix) }

    private static let filterPrefix = "filter."

    /// The search and filters a list read asks for (`?q=TEXT`, `?filter.FIELD=VALUE`,
    /// repeatable), checked against `definition`; nil when it asks for none. `q` on a list
    /// without `search`, or a filter on a field not in its `filters`, is `400 invalid-request`.
    static func requested(by request: Request, of definition: ListDefinition) throws(HTTPError) -> ListQuery? {
        var text: String?
        var filters: [Filter] = []
        for (name, value) in request.query {
            if name == "q" {
                guard definition.search != nil else {
                    throw Problem.invalidRequest("The list '\(Problem.echo(definition.name))' has no search: it takes no 'q'.")
                }
                text = value   // given once: the router refuses a repeated parameter other than a filter
            } else if isFilter(name) {
                let field = String(name.dropFirst(filterPrefix.count))
                guard let path = FieldPath(field), definition.filters.contains(path) else {
                    let declared = definition.filters.map { "'\($0)'" }.joined(separator: ", ")
                    throw Problem.invalidRequest("The list '\(definition.name)' has no filter '\(Problem.echo(field))'"
                        + (declared.isEmpty ? " (it declares none)." : " (it declares \(declared))."))
                }
                // U+001F separates a query's parts in its canonical text (what tags and page tokens
                // are bound to): in a value it made two queries one (`filter.a=x%1Ffilter.b%3Dy`).
                guard !value.utf8.contains(0x1F) else {
                    throw Problem.invalidRequest("The value of 'filter.\(Problem.echo(field))' holds U+001F, which no filter takes.")
                }
                filters.append(Filter(field: path, value: value))
            }
        }
        guard text != nil || !filters.isEmpty else { return nil }
        let query = ListQuery(text: text, filters: filters, searchFields: definition.search ?? [])
        return query.text == nil && query.filters.isEmpty ? nil : query
    }
}
