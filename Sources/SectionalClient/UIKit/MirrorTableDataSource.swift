#if canImport(UIKit)
import UIKit

/// A `UITableViewDataSource` over a ``ListMirror``: counts from its snapshot, cells configured by
/// `configure` (a `nil` row is a placeholder; its row is loaded and the cell reloaded).
/// Use it on the main thread; apply syncs with ``UITableView/apply(_:to:animation:)``.
@MainActor
public final class MirrorTableDataSource: NSObject, UITableViewDataSource {
    /// The mirror it shows.
    public let mirror: ListMirror
    /// What the table view shows now.
    public internal(set) var snapshot: ListSnapshot?
    private let cellIdentifier: (ListRow?) -> String
    private let configure: (UITableViewCell, ListRow?) -> Void

    /// A data source whose cells are dequeued by `cellIdentifier` (default: the row type, or
    /// `"placeholder"`) and filled by `configure`.
    public init(mirror: ListMirror, cellIdentifier: @escaping (ListRow?) -> String = { $0?.type ?? "placeholder" },
                configure: @escaping (UITableViewCell, ListRow?) -> Void) {
        self.mirror = mirror
        self.cellIdentifier = cellIdentifier
        self.configure = configure
    }

    public func numberOfSections(in tableView: UITableView) -> Int { snapshot?.sections.count ?? 0 }

    public func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
        snapshot?.numberOfRows(inSection: section) ?? 0
    }

    public func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String? {
        snapshot?.sections[section].section.header?.title
    }

    public func tableView(_ tableView: UITableView, titleForFooterInSection section: Int) -> String? {
        snapshot?.sections[section].section.footer?.title
    }

    public func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
        let path = ListIndexPath(section: indexPath.section, row: indexPath.row)
        let row = snapshot?.row(at: path)
        let cell = tableView.dequeueReusableCell(withIdentifier: cellIdentifier(row), for: indexPath)
        configure(cell, row)
        if row == nil, let version = snapshot?.version {
            Task { [weak self, weak tableView] in
                guard (try? await self?.mirror.row(at: path)) != nil, let self, let tableView,
                      let fresh = await self.mirror.snapshot, fresh.version == version, self.snapshot?.version == version else { return }
                self.snapshot = fresh
                tableView.reloadRows(at: [indexPath], with: .none)
            }
        }
        return cell
    }
}
#endif
