import ListModel

/// A thread's last warm search look-up: the base list or partition, the request's search
/// parameters as sent (`q`, `filter.*`, in order), the result's state and the generation of the
/// ``MaterializationCache`` table it was found in. While that generation is still the published
/// one, nothing in memory changed, so the same request on the same base finds the same result:
/// a repeated warm search skips parsing and folding its query, making its key and the second
/// table look-up (measured with callgrind on a `?q=` first page: ~3,800 of ~134,000 instructions
/// per request; see ``ViewModelStore/recentSearch(of:items:)``).
///
/// The result is not retained (an idle thread keeps no snapshot alive, as ``ReaderSlot``), nor
/// weakly referenced (that moves a state's reference counts to a side table, slower on every
/// retain): it is used only while its table is held — the table numbered ``generation``, which
/// holds it (tables never change; see ``ViewModelStore/recentSearch(of:items:)``). Its recency
/// mark is retained (a few bytes). Only its own thread touches a slot (a ``ThreadSlot``).
final class RecentSearch {
    var generation: UInt64 = 0
    var list = ""
    var partition: String?
    var language: String?
    /// The request's search parameters, as sent.
    var items: [(name: String, value: String)] = []
    /// Alive while the table numbered ``generation`` is: read it only while holding that table.
    unowned(unsafe) var state: ListState?
    var recency: Recency?

    /// Whether a query parameter is one of a search's (`q`, `filter.FIELD`).
    static func isSearchParameter(_ name: String) -> Bool { name == "q" || ListQuery.isFilter(name) }

    /// Whether the search parameters among `items` are exactly ``items``, in order, byte for byte
    /// (Swift's `==` would take a canonically equivalent filter value for the same one).
    func sameParameters(_ items: [(name: String, value: String)]) -> Bool {
        var next = 0
        for item in items where Self.isSearchParameter(item.name) {
            guard next < self.items.count, CodePointKey(self.items[next].name) == CodePointKey(item.name),
                  CodePointKey(self.items[next].value) == CodePointKey(item.value) else { return false }
            next += 1
        }
        return next == self.items.count
    }

    /// Whether this is the last search of list `list` (of `partition`'s user, in `language`),
    /// byte for byte: two users whose names are canonically equivalent are two users.
    func isOf(list: String, partition: String?, language: String?) -> Bool {
        CodePointKey(self.list) == CodePointKey(list) && partition.map(CodePointKey.init) == self.partition.map(CodePointKey.init)
            && language == self.language
    }

    /// The calling thread's slot (made on its first search).
    static var current: RecentSearch { slots.current }

    private static let slots = ThreadSlot { RecentSearch() }
}
