/// What a ``ListMirror`` holds at one version: every section, and for each visible row either the
/// row (loaded) or `nil` (a placeholder, not loaded yet). A value: keep one per table view.
public struct ListSnapshot: Hashable, Sendable {
    /// The list's name and title.
    public var list: String, title: String
    /// The list version these sections and rows show.
    public var version: Int64
    /// The view the snapshot is seen through, if any.
    public var view: String?
    /// The sections, in order.
    public var sections: [MirrorSection]

    /// One section and its visible rows' slots.
    public struct MirrorSection: Hashable, Sendable {
        /// The section (its `rowCount` is `slots.count`).
        public var section: ListSection
        var slots: [Slot]

        /// Each visible row: loaded, or `nil` for a placeholder.
        public var rows: [ListRow?] { slots.map(\.row) }
    }

    /// A visible row's place: its row once loaded; `fetch` when the next sync should load it.
    struct Slot: Hashable, Sendable {
        var row: ListRow?
        var fetch = false
    }

    /// The loaded row at `path`, `nil` for a placeholder or a path past the end.
    public func row(at path: ListIndexPath) -> ListRow? {
        guard sections.indices.contains(path.section), sections[path.section].slots.indices.contains(path.row) else { return nil }
        return sections[path.section].slots[path.row].row
    }

    /// Visible rows in section `index` (0 for an index past the end).
    public func numberOfRows(inSection index: Int) -> Int {
        sections.indices.contains(index) ? sections[index].slots.count : 0
    }

    /// Visible rows in all.
    public var rowCount: Int { sections.reduce(0) { $0 + $1.slots.count } }

    /// Rows loaded so far.
    public var loadedRowCount: Int { sections.reduce(0) { $0 + $1.slots.filter { $0.row != nil }.count } }

    /// Keys of the sections hidden in this snapshot's view.
    public var hiddenKeys: [String] { sections.filter(\.section.hidden).map(\.section.key) }

    /// Visible rows before and after `path` (for placeholders around a loaded range).
    public func itemsBefore(_ path: ListIndexPath) -> Int {
        sections.prefix(path.section).reduce(0) { $0 + $1.slots.count } + path.row
    }

    /// Visible rows after `path`.
    public func itemsAfter(_ path: ListIndexPath) -> Int {
        max(0, rowCount - itemsBefore(path) - 1)
    }

    /// Section keys and row ids (`nil`: not loaded), as the batch-update semantics see an outline.
    public var keysAndIDs: [(key: String, rows: [String?])] {
        sections.map { ($0.section.key, $0.slots.map { $0.row?.id }) }
    }
}
