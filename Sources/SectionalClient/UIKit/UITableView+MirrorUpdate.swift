#if canImport(UIKit)
import UIKit

extension UITableView {
    /// Animates a mirror's update (a sync or a toggle) in one `performBatchUpdates` call and
    /// gives `dataSource` the new snapshot inside it; a `reload` update reloads the data instead.
    @MainActor
    public func apply(_ update: ListMirror.Update, to dataSource: MirrorTableDataSource,
                      animation: UITableView.RowAnimation = .automatic, completion: ((Bool) -> Void)? = nil) {
        guard !update.changes.reload, dataSource.snapshot != nil else {
            dataSource.snapshot = update.snapshot
            reloadData()
            completion?(true)
            return
        }
        let paths = { (list: [ListIndexPath]) in list.map { IndexPath(row: $0.row, section: $0.section) } }
        let changes = update.changes
        performBatchUpdates({
            dataSource.snapshot = update.snapshot
            deleteSections(IndexSet(changes.sections.deleted), with: animation)
            insertSections(IndexSet(changes.sections.inserted), with: animation)
            for move in changes.sections.moved { moveSection(move.from, toSection: move.to) }
            deleteRows(at: paths(changes.rows.deleted), with: animation)
            insertRows(at: paths(changes.rows.inserted), with: animation)
            reloadRows(at: paths(changes.rows.updated), with: animation)
            for move in changes.rows.moved {
                moveRow(at: IndexPath(row: move.from.row, section: move.from.section),
                        to: IndexPath(row: move.to.row, section: move.to.section))
            }
        }, completion: { [weak self] finished in
            guard let self else {
                completion?(finished)
                return
            }
            // Headers that changed get their new titles (reloading a section whose rows change too
            // is not allowed in one batch); moved rows whose content changed are redrawn in place.
            // A later update may have been applied while this one animated: the data source holds
            // its snapshot, and this update's index paths name rows of an older one, so titles
            // come from what the table shows now, and the visible rows are redrawn instead.
            let current = dataSource.snapshot ?? update.snapshot
            if !changes.sections.updated.isEmpty {
                for s in 0..<min(numberOfSections, current.sections.count) {
                    headerView(forSection: s)?.textLabel?.text = current.sections[s].section.header?.title
                }
            }
            let moved = changes.rows.moved.filter { $0.updated == true }.map(\.to)
            if !moved.isEmpty {
                reloadRows(at: current == update.snapshot ? paths(moved) : indexPathsForVisibleRows ?? [], with: .none)
            }
            completion?(finished)
        })
    }
}
#endif
