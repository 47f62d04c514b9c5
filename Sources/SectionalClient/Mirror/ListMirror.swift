/// A client-side copy of a list: its outline plus the rows loaded so far, placeholders for the rest.
///
/// ``sync()`` brings it to the list's current version with the server's batch update and returns
/// that update (to animate) with the new snapshot; rows it holds keep their positional fields
/// (index path, tag location, accessibility identifier) right. ``updates()`` syncs whenever the
/// list's event stream announces a newer version (ListMirror+Updates.swift). Operations run one at
/// a time, in call order.
public actor ListMirror {
    /// The list's API.
    public nonisolated let list: SectionalList
    /// Rows per page, and per on-demand load.
    public nonisolated let pageSize: Int
    /// The view the mirror reads through (created on the first section toggle when `nil`).
    public private(set) var view: String?
    /// What the mirror holds now (`nil` before the first load).
    public private(set) var snapshot: ListSnapshot?

    private var tail: Task<Void, Never>?
    /// The version the running sync reads at least, when an event started it: the event's.
    /// Behind a load balancer the instance answering may not have applied the version another
    /// instance announced, and would say the list has not moved (the mirror then stayed behind
    /// until the next write); asked for the version, it waits for it, or answers `503`.
    private var floor: Int64?

    /// The list's API as the running operation reads it (at least at ``floor``).
    private var reader: SectionalList {
        guard let floor else { return list }
        return SectionalList(client: list.client.reading(atLeast: Int(floor)), name: list.name, search: list.search)
    }

    /// A change the mirror made: the batch update to animate and the snapshot after it.
    public struct Update: Sendable {
        /// The batch update from the previous snapshot to `snapshot` (`reload`: redraw everything).
        public let changes: Changes
        /// The mirror's new contents.
        public let snapshot: ListSnapshot
    }

    /// A load by index path (or a toggle) found the list at another version than the mirror, or
    /// the mirror's view changed elsewhere or gone (`server` then the mirror's version): sync first.
    public struct Stale: Error, Sendable {
        /// The mirror's version and the server's.
        public let mirror: Int64, server: Int64
    }

    /// A mirror of `list` seen through `view`; nothing is loaded until ``reload(rows:)`` or ``sync()``.
    public init(list: SectionalList, view: String? = nil, pageSize: Int = 50) {
        self.list = list
        self.view = view
        self.pageSize = max(1, min(pageSize, 500))
    }

    // MARK: Operations

    /// Fetches the outline and the first `rows` visible rows (default: as many as are loaded now,
    /// at least a page) afresh.
    @discardableResult
    public func reload(rows: Int? = nil) async throws -> Update {
        try await serially { try await $0.reloadNow(rows: rows) }
    }

    /// Brings the mirror to the current version: applies the server's `changes` since its version
    /// (or reloads when the server says `reload`, or when the list's version is below the mirror's)
    /// and returns the batch update to animate. A section
    /// shown or hidden elsewhere through the mirror's view reloads, even when the list has not moved.
    @discardableResult
    public func sync() async throws -> Update {
        try await serially { try await $0.syncNow() }
    }

    /// The row at `path`, loading the page of its section that holds it when it is a placeholder.
    /// Throws ``Stale`` when the list has moved on or the mirror's view is gone (call ``sync()``),
    /// nothing stored.
    public func row(at path: ListIndexPath) async throws -> ListRow? {
        try await serially { try await $0.loadNow(path) }
    }

    /// Loads the next rows after the loaded beginning of the list (up to a page from the first
    /// placeholder, within its section); `false` when every row is loaded already. Throws ``Stale``
    /// when the list has moved on or the mirror's view is gone (call ``sync()``), nothing stored.
    @discardableResult
    public func loadNext() async throws -> Bool {
        try await serially { mirror in
            guard let snapshot = await mirror.snapshot else { return false }
            for (n, section) in snapshot.sections.enumerated() {
                if let r = section.slots.firstIndex(where: { $0.row == nil }) {
                    try await mirror.loadRange(section: n, start: r, count: Swift.min(mirror.pageSize, section.slots.count - r))
                    return true
                }
            }
            return false
        }
    }

    /// Hides or shows section `index` (by its key in the mirror) and returns the batch update:
    /// its rows deleted, or inserted as placeholders (the first page loaded when the list has not moved on).
    /// Throws ``Stale`` when the list has moved on so far that `index` names another section now
    /// (the server then changes nothing: the request names the state and the section's key), or
    /// none, or when the mirror's view is gone (sync, then toggle again: the sync reloads without
    /// it, and the toggle makes a new one). Without a view, the mirror creates one first and reads
    /// through it from then on (``ListSnapshot/view`` says so), even when the toggle fails.
    ///
    /// Once the server has answered the toggle, the mirror shows the section as its view now has
    /// it, even when the first rows of a section shown cannot be read (they stay placeholders);
    /// it throws then only when cancelled (`CancellationError`, after storing that). A toggle
    /// cancelled before its answer may or may not have reached the server: ``sync()`` tells, as
    /// it does for a section shown or hidden elsewhere through the view, and sending it again
    /// does no harm.
    @discardableResult
    public func setHidden(_ hidden: Bool, section index: Int) async throws -> Update {
        try await serially { try await $0.setHiddenNow(hidden, index) }
    }

    /// Flips section `index`; see ``setHidden(_:section:)`` (a mirror not loaded yet loads first).
    @discardableResult
    public func toggle(section index: Int) async throws -> Update {
        try await serially { mirror in
            if await mirror.snapshot == nil { _ = try await mirror.reloadNow(rows: nil) }
            guard let snapshot = await mirror.snapshot, snapshot.sections.indices.contains(index) else {
                throw SectionalError(slug: "section-not-found", status: 404, detail: "The mirror has no section \(index).")
            }
            return try await mirror.setHiddenNow(!snapshot.sections[index].section.hidden, index)
        }
    }

    // MARK: One at a time

    /// Runs `operation` after every operation called before it has ended. Cancelling the caller
    /// cancels the operation (its requests then throw `CancellationError`), so a request that
    /// hangs holds up no later operation once its caller gives up; one still waiting its turn
    /// throws at once and never runs (``MirrorTurn``), while the next still waits for the ones
    /// before it.
    func serially<T: Sendable>(_ operation: @escaping @Sendable (ListMirror) async throws -> T) async throws -> T {
        let previous = tail
        let turn = MirrorTurn<T>()
        let task = Task {
            await previous?.value
            guard turn.start() else { throw CancellationError() }
            return try await operation(self)
        }
        tail = Task { _ = try? await task.value }
        return try await withTaskCancellationHandler { try await turn.outcome(of: task) } onCancel: {
            task.cancel()
            turn.giveUp()
        }
    }

    // MARK: Work

    private func reloadNow(rows wanted: Int?) async throws -> Update {
        let from = snapshot?.version ?? 0
        let target = max(wanted ?? snapshot?.loadedRowCount ?? 0, wanted == nil ? pageSize : 0)
        // The view read with, dropped here when it is gone but by the mirror only with the
        // snapshot read without it: a reload that fails after stores nothing, the view neither.
        var view = self.view
        var attempt = 0
        while true {
            attempt += 1
            let outline: Outline
            do {
                outline = try await reader.outline(view: view)
            } catch let problem as SectionalError where view != nil && problem.viewGone {
                // The view is gone (deleted elsewhere, expired, or the server went back to a
                // database without it): read the list as it is for everyone; a later toggle
                // makes a new view.
                view = nil
                continue
            }
            var next = ListSnapshot(list: outline.list, title: outline.title, version: outline.version, view: view,
                                    sections: outline.sections.map { .init(section: $0, slots: Array(repeating: .init(), count: $0.rowCount)) })
            var loaded = 0, consistent = true
            if target > 0 {
                do {
                    for try await page in reader.pages(size: pageSize, view: view) {
                        guard page.version == outline.version else { consistent = false; break }
                        for part in page.sections where next.sections.indices.contains(part.section.index) {
                            for (i, row) in part.rows.enumerated() where next.sections[part.section.index].slots.indices.contains(part.rowOffset + i) {
                                next.sections[part.section.index].slots[part.rowOffset + i].row = row
                                loaded += 1
                            }
                        }
                        if loaded >= target { break }
                    }
                } catch let problem as SectionalError where problem.slug == "invalid-page-token" || (view != nil && problem.viewGone) {
                    // The list's definition changed under the walk (`400 invalid-page-token`, with
                    // `reload: true`, or without it from an instance of an earlier release behind
                    // the same load balancer), or the view went: start again from the outline
                    // (without the view, as the outline read does).
                    // One never told to reload, met on every try, is no change under the walk.
                    if attempt >= 5 && !problem.reload && !problem.viewGone { throw problem }
                    if problem.viewGone { view = nil }
                    consistent = false
                }
            }
            if consistent || attempt >= 5 {
                next.view = view
                snapshot = next
                self.view = view
                return Update(changes: Changes(list: list.name, from: from, to: next.version, reload: true), snapshot: next)
            }
        }
    }

    func syncNow(atLeast version: Int64) async throws -> Update {
        floor = version
        defer { floor = nil }
        return try await syncNow()
    }

    func syncNow() async throws -> Update {
        guard let old = snapshot else { return try await reloadNow(rows: nil) }
        for _ in 0..<3 {
            let changes: Changes
            do {
                changes = try await reader.changes(since: old.version, view: view)
            } catch let problem as SectionalError where problem.status == 400 && problem.slug == "invalid-version" {
                // The mirror is ahead of the list: the server went back (a new database at its address,
                // one put back by a file copy), so no diff leads from the mirror's version to its.
                break
            } catch let problem as SectionalError where view != nil && problem.viewGone {
                break   // reload: without the view, as it is for everyone
            }
            if changes.reload { break }
            if changes.to == old.version {
                // The list has not moved; its view may have, elsewhere (that moves no version).
                if let view, try await hiddenChanged(in: old, view: view) { break }
                return Update(changes: changes, snapshot: old)
            }
            // The reads that follow, at least at the diff's version: behind a load balancer, an
            // instance that has not applied it yet waits for it, rather than answer older (each
            // such answer sent the sync round again, then to a whole reload that could take the
            // mirror back).
            let floorBefore = floor
            floor = max(floor ?? changes.to, changes.to)
            defer { floor = floorBefore }
            let outline = try await reader.outline(view: view)
            guard outline.version == changes.to else { continue }
            guard let applied = try? SnapshotApplier(pageSize: pageSize).apply(changes, to: old, outline: outline) else { break }
            var next = applied.snapshot
            guard let fresh = try await fetchMarked(&next) else { continue }
            SnapshotApplier.reposition(&next, fresh: fresh)
            snapshot = next
            return Update(changes: announcing(applied.waiting, in: changes), snapshot: next)
        }
        return try await reloadNow(rows: nil)
    }

    /// `true` when the view's hidden sections are not those `snapshot` shows hidden: a section was
    /// shown or hidden elsewhere through the view.
    private func hiddenChanged(in snapshot: ListSnapshot, view: String) async throws -> Bool {
        let state: ViewState
        do {
            state = try await reader.view(view)
        } catch let problem as SectionalError where problem.viewGone {
            return true   // reload, without it
        }
        let hidden = Set(state.hidden)
        return snapshot.sections.contains { $0.section.hidden != hidden.contains($0.section.key) }
    }

    /// The server's update, plus the placeholders this sync loaded (shown before as placeholders,
    /// now as rows): updated where they stay, moves flagged `updated`.
    private func announcing(_ waiting: [ListIndexPath: (from: ListIndexPath, moved: Bool)], in changes: Changes) -> Changes {
        var changes = changes
        for (to, origin) in waiting.sorted(by: { $0.key < $1.key }) {
            if origin.moved {
                if let i = changes.rows.moved.firstIndex(where: { $0.to == to }) { changes.rows.moved[i].updated = true }
            } else if !changes.rows.updated.contains(origin.from) {
                changes.rows.updated.append(origin.from)
            }
        }
        return changes
    }

    /// Loads the rows marked `fetch`, in runs; `nil` when an answer is at another version, or the
    /// list has moved on so far that a section `next` holds is gone (`404 section-not-found`).
    private func fetchMarked(_ next: inout ListSnapshot) async throws -> Set<ListIndexPath>? {
        var fresh = Set<ListIndexPath>()
        for n in next.sections.indices {
            let marked = next.sections[n].slots.indices.filter { next.sections[n].slots[$0].fetch }
            var i = 0
            while i < marked.count {
                var end = i
                while end + 1 < marked.count, marked[end + 1] == marked[end] + 1, end - i < 499 { end += 1 }
                let start = marked[i], count = marked[end] - start + 1
                let range: SectionRange
                do {
                    range = try await reader.rows(inSection: n, start: start, count: count, view: view)
                } catch let problem as SectionalError where problem.sectionGone {
                    return nil
                }
                guard range.version == next.version, range.section.section.key == next.sections[n].section.key,
                      range.section.rows.count == count else { return nil }
                for (offset, row) in range.section.rows.enumerated() {
                    next.sections[n].slots[start + offset] = .init(row: row, fetch: false)
                    fresh.insert(ListIndexPath(section: n, row: start + offset))
                }
                i = end + 1
            }
        }
        return fresh
    }

    private func loadNow(_ path: ListIndexPath) async throws -> ListRow? {
        guard let current = snapshot, current.sections.indices.contains(path.section),
              current.sections[path.section].slots.indices.contains(path.row) else { return nil }
        if let row = current.row(at: path) { return row }
        let start = path.row - path.row % pageSize
        try await loadRange(section: path.section, start: start, count: min(pageSize, current.sections[path.section].slots.count - start))
        return snapshot?.row(at: path)
    }

    /// Loads rows `[start, start + count)` of a section at the mirror's version; ``Stale`` when the
    /// list has moved on (the section may be gone).
    private func loadRange(section n: Int, start: Int, count: Int) async throws {
        guard var current = snapshot else { return }
        let range: SectionRange
        do {
            range = try await reader.rows(inSection: n, start: start, count: count, view: view)
        } catch let problem as SectionalError where problem.sectionGone || problem.viewGone {
            throw try await stale(after: problem, mirror: current.version)
        }
        guard range.version == current.version else { throw Stale(mirror: current.version, server: range.version) }
        // The same version, but the section hidden or shown through the view elsewhere (which
        // moves no version): its rows are not the mirror's to store (they came back empty, and a
        // `loadNext` loop asked for them forever). Stale: a sync reloads.
        guard range.section.section.key == current.sections[n].section.key,
              range.section.section.hidden == current.sections[n].section.hidden else {
            throw Stale(mirror: current.version, server: range.version)
        }
        for (offset, row) in range.section.rows.enumerated() where current.sections[n].slots.indices.contains(start + offset) {
            current.sections[n].slots[start + offset] = .init(row: row, fetch: false)
        }
        snapshot = current
    }

    private func setHiddenNow(_ hidden: Bool, _ index: Int) async throws -> Update {
        if snapshot == nil { _ = try await reloadNow(rows: nil) }
        guard var next = snapshot, next.sections.indices.contains(index) else {
            throw SectionalError(slug: "section-not-found", status: 404, detail: "The mirror has no section \(index).")
        }
        let before = next.sections[index]
        var changes = Changes(list: list.name, from: next.version, to: next.version, reload: false)
        guard before.section.hidden != hidden else { return Update(changes: changes, snapshot: next) }
        if view == nil {
            // A new view starts from the definition's default hidden sections, as the list is
            // read without one: those absent from the list for now too. Every read goes through
            // it from now on, whatever becomes of the toggle.
            view = try await list.createView().view
            next.view = view
            snapshot?.view = view
        }
        guard let view else { throw SectionalError(slug: "view-not-found", status: 404, detail: "No view.") }
        do {
            // Named by its key: when the list has moved on so far that the index is another
            // section, the server changes nothing (412) and says where the list is.
            _ = try await list.setHidden(hidden, section: index, view: view, key: before.section.key)
        } catch let problem as SectionalError where problem.sectionGone || problem.viewGone {
            throw try await stale(after: problem, mirror: next.version)
        } catch let problem as SectionalError where problem.status == 412 {
            throw problem.version.map { Stale(mirror: next.version, server: $0) } ?? problem
        }
        var section = before.section
        section.hidden = hidden
        if hidden {
            section.rowCount = 0
            changes.rows.deleted = before.slots.indices.map { ListIndexPath(section: index, row: $0) }
            next.sections[index] = .init(section: section, slots: [])
        } else {
            // Shown: its rows at the mirror's version, the first page loaded when the list has not moved on.
            section.rowCount = section.totalRowCount
            let slots = (0..<section.rowCount).map { ListSnapshot.Slot(row: nil, fetch: $0 < pageSize) }
            changes.rows.inserted = slots.indices.map { ListIndexPath(section: index, row: $0) }
            next.sections[index] = .init(section: section, slots: slots)
            if !slots.isEmpty {
                // The view has changed on the server: from here on the mirror shows it, whatever
                // becomes of these rows. Unread (the section gone, the list moved on, the request
                // failed or was cancelled) they stay placeholders, which `loadNext()` and
                // `row(at:)` read, as does the next sync that moves the list; a cancelled toggle
                // throws after storing that.
                let range: SectionRange?
                do {
                    range = try await reader.rows(inSection: index, start: 0, count: min(pageSize, slots.count), view: view)
                } catch is CancellationError {
                    snapshot = next
                    throw CancellationError()
                } catch {
                    range = nil
                }
                if let range, range.version == next.version {
                    for (offset, row) in range.section.rows.enumerated() where slots.indices.contains(offset) {
                        next.sections[index].slots[offset] = .init(row: row, fetch: false)
                    }
                }
            }
        }
        snapshot = next
        return Update(changes: changes, snapshot: next)
    }

    /// ``Stale`` for a `404 section-not-found` naming a section the mirror holds at `version`: the
    /// list has moved on and that section is gone. Reads the outline for the list's version (one
    /// request); throws `problem` itself when the list has not moved. For a `404 view-not-found`
    /// (the view expired, evicted or deleted), ``Stale`` at `version`: the sync the caller makes
    /// reloads without the view, and a toggle after it makes a new one.
    private func stale(after problem: SectionalError, mirror version: Int64) async throws -> Stale {
        if problem.viewGone { return Stale(mirror: version, server: version) }
        let server = try await reader.outline(view: view).version
        guard server != version else { throw problem }
        return Stale(mirror: version, server: server)
    }
}

private extension SectionalError {
    /// A `404 section-not-found`: the section index read names no section (now).
    var sectionGone: Bool { status == 404 && slug == "section-not-found" }
    /// A `404 view-not-found`: the mirror's view no longer exists.
    var viewGone: Bool { status == 404 && slug == "view-not-found" }
}
