/// A UIKit-style index path: section and row, both 0-based.
public struct ListIndexPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The section index.
    public var section: Int
    /// The row index within the section.
    public var row: Int
    /// An index path.
    public init(section: Int, row: Int) { self.section = section; self.row = row }
    /// Ordered by section, then row.
    public static func < (a: ListIndexPath, b: ListIndexPath) -> Bool { (a.section, a.row) < (b.section, b.row) }
    /// `[section, row]`.
    public var description: String { "[\(section), \(row)]" }
}

/// A tag range.
public struct TagRange: Sendable, Hashable {
    /// The first tag.
    public var location: Int
    /// The number of tags (0 for a row without tags).
    public var length: Int
    /// A tag range.
    public init(location: Int, length: Int) { self.location = location; self.length = length }
}

/// A row found by a look-up: where it is and whether the view hides its section.
public struct RowLocation: Sendable {
    /// Where the row is.
    public let indexPath: ListIndexPath
    /// The row's tags.
    public let tag: TagRange
    /// `true` when the row's section is hidden in the view asked about.
    public let hidden: Bool
    /// The row's id.
    public var rowID: String { row.id }
    /// The row's type.
    public var rowType: String { row.type }
    let row: Row
}

/// A section's identity and counts.
public struct SectionInfo: Sendable, Hashable {
    /// The section index.
    public let index: Int
    /// The section's (served, unique) key.
    public let key: String
    /// The section type.
    public let type: String
    /// Rows in the section, hidden or not.
    public let totalRowCount: Int
    /// The tag of the section's first row.
    public let firstTag: Int
    /// Tags used by the section's rows.
    public let tagCount: Int
}

extension ListSnapshot {
    /// Section `index`, or `nil` when out of range.
    public func section(at index: Int) -> SectionInfo? {
        guard index >= 0, index < sections.count else { return nil }
        let s = sections[index]
        return SectionInfo(index: index, key: s.key, type: definition.sections[s.spec].type, totalRowCount: s.rows.count,
                           firstTag: tagStarts[index], tagCount: s.rows.tagCount)
    }

    /// The index of the section with this (served) key.
    public func sectionIndex(forKey key: String) -> Int? {
        sections.firstIndex { codePointEqual($0.key, key) }
    }

    /// The row whose tag range contains `tag` (length-0 rows never match); `nil` past the end.
    public func locate(tag: Int, view: ViewState) -> RowLocation? {
        guard tag >= 0, tag < tagCount else { return nil }
        var lo = 0, hi = sections.count - 1
        while lo < hi {   // last section with tagStarts ≤ tag and tags > 0
            let mid = (lo + hi + 1) >> 1
            if tagStarts[mid] <= tag { lo = mid } else { hi = mid - 1 }
        }
        // Sections with no tags share their start with the next one: walk back to one that has tags.
        // (Section tag counts come from `tagStarts`: no section node is copied.)
        var si = lo
        while si >= 0 && tagStarts[si + 1] == tagStarts[si] { si -= 1 }
        guard si >= 0 else { return nil }
        let found: (Int, Int)? = sections.withUnsafeBufferPointer { $0[si].rows.row(containingTag: tag - tagStarts[si]) }
        guard let (ri, offset) = found else { return nil }
        return location(section: si, row: ri, tag: tagStarts[si] + offset, view: view)
    }

    /// Whether a row (hidden or not, of a record or a literal row) has this id: O(1).
    public func contains(rowID id: String) -> Bool { index[id] != nil }

    /// The row with this id.
    public func locate(rowID id: String, view: ViewState) -> RowLocation? {
        guard let e = index[id] else { return nil }
        // The owner's row is read unretained (the index entry and this snapshot keep it alive).
        let spec: Int, unmanagedRow: Unmanaged<Row>
        switch e {
        case .one(let s, let r): spec = s; unmanagedRow = r
        case .many(let cs): spec = cs[0].spec; unmanagedRow = Unmanaged.passUnretained(cs[0].row)
        }
        let grouped = rankers.withUnsafeBufferPointer { $0[spec].isGrouped }
        let position: (section: Int, row: Int)? = unmanagedRow._withUnsafeGuaranteedRef { row in
            let (si, found) = grouped ? sectionLowerBound(spec: spec, rawKey: row.groupKey)
                                      : definition.sections.withUnsafeBufferPointer { sectionLowerBound(spec: spec, rawKey: $0[spec].key ?? "") }
            guard found else { return nil }
            return definition.orders.withUnsafeBufferPointer { orders in
                sections.withUnsafeBufferPointer { secs in
                    secs[si].rows.withRowsView { $0.index(ofRow: row, order: orders.baseAddress! + spec) }.map { (si, $0) }
                }
            }
        }
        guard let position else { return nil }
        return location(section: position.section, row: position.row, view: view)
    }

    /// Row `row` of section `section`, or `nil` when out of range.
    public func location(section si: Int, row ri: Int, view: ViewState) -> RowLocation? {
        guard si >= 0, si < sections.count, ri >= 0 else { return nil }
        let tag: Int? = sections.withUnsafeBufferPointer { secs in
            secs[si].rows.withRowsView { v in ri < v.count ? v.tagOffset(ofRow: ri) : nil }
        }
        guard let tag else { return nil }
        return location(section: si, row: ri, tag: tagStarts[si] + tag, view: view)
    }

    /// The location of an existing row whose tag is known; reads the snapshot without copying
    /// section nodes (the returned location holds the row strongly: it may outlive the snapshot).
    private func location(section si: Int, row ri: Int, tag: Int, view: ViewState) -> RowLocation {
        let (row, hidden): (Row, Bool) = sections.withUnsafeBufferPointer { secs in
            let node = secs.baseAddress! + si
            let row = node.pointee.rows.withRowsView { $0.withRow(at: ri) { $0 } }   // retained: returned
            return (row, view.isHidden(node.pointee.key))
        }
        return RowLocation(indexPath: ListIndexPath(section: si, row: ri), tag: TagRange(location: tag, length: row.tagLength),
                           hidden: hidden, row: row)
    }

    /// Indexes of all sections of `type`, ascending (an index set).
    public func sectionIndexes(ofType type: String) -> [Int] {
        var out: [Int] = []
        for (i, s) in sections.enumerated() where codePointEqual(definition.sections[s.spec].type, type) { out.append(i) }
        return out
    }

    /// The lowest index path whose section type is `sectionType` and row type is `rowType`.
    public func locate(sectionType: String, rowType: String, view: ViewState) -> RowLocation? {
        for (i, s) in sections.enumerated() where codePointEqual(definition.sections[s.spec].type, sectionType) {
            if let r = s.rows.firstIndex(ofType: rowType) { return location(section: i, row: r, view: view) }
        }
        return nil
    }
}
