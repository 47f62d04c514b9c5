import TestSupport
import XCTest
@testable import ListModel
import SectionalService   // the answers' envelopes

/// `ChangesApplier` (in TestSupport, on plain outlines) fed from the model: update values as the
/// service writes them, and a snapshot's outline through a view.
extension ChangesApplier {
    /// The answer JSON for an update (`nil`: reload), as the service writes it.
    static func answer(_ update: BatchUpdate?, from: Int64 = 1, to: Int64 = 2) -> [UInt8] {
        var w = JSONWriter()
        ListSnapshot.writeChangesAnswer(update, list: "l", from: from, to: to, into: &w)
        return w.bytes
    }

    /// Applies an update value (through its JSON).
    static func apply(old: [Section], update: BatchUpdate?, new: [Section]? = nil, contentMode: Bool = false) throws -> [Section] {
        try apply(old: old, changes: answer(update), new: new, contentMode: contentMode)
    }
}

extension ListSnapshot {
    /// The outline through a view: each section's key and its rows' ids (none when hidden).
    /// With `content`, rows are `"id|<served content>"` (for ``ChangesApplier`` content mode).
    func changesOutline(view: ViewState, content: Bool = false) -> [ChangesApplier.Section] {
        (0..<sectionCount).map { s in
            let info = section(at: s)!
            if view.isHidden(info.key) { return ChangesApplier.Section(key: info.key, rows: []) }
            return ChangesApplier.Section(key: info.key, rows: (0..<info.totalRowCount).map { r in
                let loc = location(section: s, row: r, view: view)!
                return content ? "\(loc.rowID)|\(servedContent(loc))" : loc.rowID
            })
        }
    }

    /// A row's served JSON minus its position-dependent members (index path, tag location,
    /// accessibility identifier suffixes) — independent of the model's own content test.
    func servedContent(_ loc: RowLocation) -> String {
        var w = JSONWriter()
        writeRow(loc, into: &w)
        guard case .object(var o)? = try? JSONParser.parse(w.bytes) else { return "<not an object: \(text(w))>" }
        o["indexPath"] = nil
        if case .object(let tag)? = o["tag"] { o["tag"] = tag["length"] }
        if case .string(let acc)? = o["accessibilityIdentifier"] {
            // Strip trailing `_<digits>` suffixes (section/row): the prefix is content.
            var s = Substring(acc)
            let spec = definition.sections[sections[loc.indexPath.section].spec]
            if let a = spec.accessibility {
                if a.includesRow, let u = s.lastIndex(of: "_") { s = s[..<u] }
                if a.includesSection, let u = s.lastIndex(of: "_") { s = s[..<u] }
            }
            o["accessibilityIdentifier"] = .string(String(s))
        }
        var out = JSONWriter()
        out.value(.object(o))
        return String(decoding: out.bytes, as: UTF8.self)
    }
}
