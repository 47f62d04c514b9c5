import Foundation

/// One list's API: outline, pages, section ranges, look-ups, views, changes and events.
/// Every read takes an optional view id; without one the definition's default hidden sections apply.
/// With a ``search``, every read (events included) is of that search and filter result, and a
/// view's section index names a section of that result.
public struct SectionalList: Sendable {
    /// The client it uses.
    public let client: SectionalClient
    /// The list's name.
    public let name: String
    /// The search text and filters every read carries (empty: the whole list).
    public let search: ListSearch

    init(client: SectionalClient, name: String, search: ListSearch = ListSearch()) {
        self.client = client
        self.name = name
        self.search = search
    }

    private var base: [String] { ["v1", "lists", name] }
    private func viewQuery(_ view: String?) -> [(String, String)] { (view.map { [("view", $0)] } ?? []) + search.queryItems }

    /// The outline: every section (with counts, tags and hidden state), no rows.
    public func outline(view: String? = nil) async throws -> Outline {
        try await client.get(base, query: viewQuery(view))
    }

    /// One page of visible rows (`pageSize` 0: the server's default).
    public func page(size: Int = 0, token: String? = nil, view: String? = nil) async throws -> ListPage {
        var query = viewQuery(view)
        if size != 0 { query.append(("pageSize", String(size))) }
        if let token { query.append(("pageToken", token)) }
        return try await client.get(base + ["rows"], query: query)
    }

    /// Every page, first to last, fetched as they are iterated.
    public func pages(size: Int = 0, view: String? = nil) -> PageSequence {
        PageSequence(list: self, size: size, view: view)
    }

    /// Visible rows `[start, start + count)` of section `index` (`count` `nil`: the server's default).
    public func rows(inSection index: Int, start: Int = 0, count: Int? = nil, view: String? = nil) async throws -> SectionRange {
        var query = viewQuery(view) + [("start", String(start))]
        if let count { query.append(("count", String(count))) }
        return try await client.get(base + ["sections", String(index), "rows"], query: query)
    }

    /// The indexes of every section of `type`.
    public func sections(ofType type: String, view: String? = nil) async throws -> SectionIndexes {
        try await client.get(base + ["sections"], query: [("type", type)] + viewQuery(view))
    }

    /// The first row of `rowType` in a section of `sectionType`.
    public func indexPath(sectionType: String, rowType: String, view: String? = nil) async throws -> RowLookUp {
        try await client.get(base + ["index-path"], query: [("sectionType", sectionType), ("rowType", rowType)] + viewQuery(view))
    }

    /// The row whose tag range holds `tag`.
    public func row(tag: Int, view: String? = nil) async throws -> RowLookUp {
        try await client.get(base + ["tags", String(tag)], query: viewQuery(view))
    }

    /// The row with id `id`.
    public func row(id: String, view: String? = nil) async throws -> RowLookUp {
        try await client.get(base + ["rows", id], query: viewQuery(view))
    }

    /// The batch update from version `since` to the current one (`reload` when the server cannot tell).
    public func changes(since: Int64, view: String? = nil, maxChanges: Int? = nil) async throws -> Changes {
        var query = [("since", String(since))] + viewQuery(view)
        if let maxChanges { query.append(("maxChanges", String(maxChanges))) }
        return try await client.get(base + ["changes"], query: query)
    }

    /// The list's versions as they happen, from its event stream; reconnects (with `Last-Event-ID`)
    /// when the stream drops, waiting what the server's `retry:` says (or `reconnectDelay` seconds
    /// when given), or what a 503's `Retry-After` says (at most 5 minutes). Ends with an error only
    /// for a problem answer other than 502, 503 or 504 (``SectionalError/serverAway``), or when
    /// cancelled.
    public func events(reconnectDelay: Double? = nil) -> VersionEvents {
        VersionEvents(list: self, reconnectDelay: reconnectDelay)
    }

    // MARK: Views
    // View requests carry the search too, as reads do: a section index names a section of the result.

    /// Creates a view hiding `hidden` (section keys); `nil`: the definition's default hidden sections.
    public func createView(hidden: [String]? = nil) async throws -> ViewState {
        try await client.send("POST", base + ["views"], query: search.queryItems,
                              body: try SectionalClient.json(hidden.map { ["hidden": $0] } ?? [:]))
    }

    /// A view's state.
    public func view(_ id: String) async throws -> ViewState {
        try await client.get(base + ["views", id], query: search.queryItems)
    }

    /// Hides or shows section `index` (of the search result, with a ``search``) in a view. With
    /// `key`, only while section `index` is the one with that key: else nothing changes and it
    /// throws `412 precondition-failed` with the list's ``SectionalError/version``.
    public func setHidden(_ hidden: Bool, section index: Int, view: String, key: String? = nil) async throws -> ViewSection {
        struct Change: Encodable { let hidden: Bool, key: String? }
        return try await client.send("PUT", base + ["views", view, "sections", String(index)], query: search.queryItems,
                                     body: try SectionalClient.json(Change(hidden: hidden, key: key)))
    }

    /// Flips section `index` (of the search result, with a ``search``) in a view.
    public func toggle(section index: Int, view: String) async throws -> ViewSection {
        try await client.send("POST", base + ["views", view, "sections", String(index), "toggle"], query: search.queryItems)
    }

    /// Deletes a view.
    public func deleteView(_ id: String) async throws {
        _ = try await client.send("DELETE", base + ["views", id], query: search.queryItems) as (data: Data, status: Int, version: Int)
    }

    /// A mirror of this list (nothing loaded until ``ListMirror/reload(rows:)`` or ``ListMirror/sync()``).
    public func mirror(view: String? = nil, pageSize: Int = 50) -> ListMirror {
        ListMirror(list: self, view: view, pageSize: pageSize)
    }
}

/// Every page of a list, fetched one by one as they are iterated.
public struct PageSequence: AsyncSequence, Sendable {
    public typealias Element = ListPage
    let list: SectionalList, size: Int, view: String?

    /// An iterator that follows `nextPageToken`.
    public func makeAsyncIterator() -> Iterator { Iterator(sequence: self) }

    /// Follows `nextPageToken` until the last page.
    public struct Iterator: AsyncIteratorProtocol {
        let sequence: PageSequence
        var token: String?
        var done = false

        init(sequence: PageSequence) { self.sequence = sequence }

        /// The next page, or `nil` after the last.
        public mutating func next() async throws -> ListPage? {
            guard !done else { return nil }
            let page = try await sequence.list.page(size: sequence.size, token: token, view: sequence.view)
            token = page.nextPageToken
            done = token == nil
            return page
        }
    }
}

/// A search and filters on a list that declares them: `text` is `?q=` (rows whose search fields
/// contain it, case- and Latin-diacritic-insensitive), each filter `?filter.FIELD=VALUE` (field
/// equality; all must hold).
public struct ListSearch: Sendable, Hashable {
    /// The search text; nil or empty for none.
    public var text: String?
    /// Field → value that must be equal.
    public var filters: [String: String]

    public init(text: String? = nil, filters: [String: String] = [:]) {
        self.text = text
        self.filters = filters
    }

    /// The query parameters, filters by field name.
    var queryItems: [(String, String)] {
        var items: [(String, String)] = []
        if let text, !text.isEmpty { items.append(("q", text)) }
        for (field, value) in filters.sorted(by: { $0.key < $1.key }) { items.append(("filter." + field, value)) }
        return items
    }
}
