/// JSON output in the SPEC §3–4 shapes, written with ``JSONWriter``.
///
/// Two levels: whole answers that take the list name and version (`write…Answer`), and the
/// pieces they are made of (``writeSection(_:view:into:)``, ``writeRow(_:into:)``) for answers
/// the service composes itself (e.g. the view toggle answer).
///
/// Choices where the SPEC is silent: a section's `type` and `title` are always present (`""`
/// when not configured), `icon` is omitted when absent or empty (like a row's optional fields),
/// `header`/`footer` are `null` when absent and otherwise `{"title","height"[,
/// "accessibilityIdentifier"]}` with height defaulting to 28; an outline's `title` falls back to
/// the list name.
extension ListSnapshot {
    // MARK: Rows

    private static let kIndexPath = Array(",\"indexPath\":{\"section\":".utf8)
    private static let kRow = Array(",\"row\":".utf8)
    private static let kTag = Array("},\"tag\":{\"location\":".utf8)
    private static let kLength = Array(",\"length\":".utf8)

    /// Appends a row object at a position.
    @inline(__always)
    func appendRow(_ row: Row, section: Int, spec: SectionSpec, rowIndex: Int, tag: Int, into w: inout JSONWriter) {
        w.rawValueBegin()
        row.json.withUnsafeBufferPointer { j in
            w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: j[0..<row.headEnd]))
            w.bytes.append(contentsOf: ListSnapshot.kIndexPath)
            JSONNumberText.appendInt(Int64(section), to: &w.bytes)
            w.bytes.append(contentsOf: ListSnapshot.kRow)
            JSONNumberText.appendInt(Int64(rowIndex), to: &w.bytes)
            w.bytes.append(contentsOf: ListSnapshot.kTag)
            JSONNumberText.appendInt(Int64(tag), to: &w.bytes)
            w.bytes.append(contentsOf: ListSnapshot.kLength)
            JSONNumberText.appendInt(Int64(row.tagLength), to: &w.bytes)
            w.bytes.append(0x7D)
            w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: j[row.headEnd..<row.bodyEnd]))
            if let acc = spec.accessibility {
                w.bytes.append(contentsOf: spec.accessibilityPrefix)
                if acc.includesSection { w.bytes.append(0x5F); JSONNumberText.appendInt(Int64(section), to: &w.bytes) }
                if acc.includesRow { w.bytes.append(0x5F); JSONNumberText.appendInt(Int64(rowIndex), to: &w.bytes) }
                w.bytes.append(0x22)
            }
            w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: j[row.bodyEnd...]))
            w.bytes.append(0x7D)
        }
    }

    /// Writes a located row's object (SPEC §3.1).
    public func writeRow(_ loc: RowLocation, into w: inout JSONWriter) {
        let spec = definition.sections[sections[loc.indexPath.section].spec]
        appendRow(loc.row, section: loc.indexPath.section, spec: spec, rowIndex: loc.indexPath.row, tag: loc.tag.location, into: &w)
    }

    /// Writes rows `start ..< start+count` of section `si` as array elements (no brackets).
    func appendRows(section si: Int, start: Int, count: Int, into w: inout JSONWriter) {
        let s = sections[si]
        let spec = definition.sections[s.spec]
        var tag = tagStarts[si] + s.rows.tagOffset(ofRow: start)
        s.rows.forEach(from: start, count: count) { row, i in
            appendRow(row, section: si, spec: spec, rowIndex: i, tag: tag, into: &w)
            tag += row.tagLength
        }
    }

    // MARK: Sections

    /// Writes section `index` (SPEC §3.2) as a complete object.
    public func writeSection(_ index: Int, view: ViewState, into w: inout JSONWriter) {
        w.beginObject()
        writeSectionMembers(index, view: view, into: &w)
        w.endObject()
    }

    /// Writes the members of section `index` into an open object (to add e.g. `rows`).
    public func writeSectionMembers(_ index: Int, view: ViewState, into w: inout JSONWriter) {
        let s = sections[index]
        let spec = definition.sections[s.spec]
        let count = s.rows.count
        let hidden = view.isHidden(s.key)
        w.key("index"); w.int(index)
        w.key("key"); w.string(s.key)
        w.key("type"); w.string(spec.type)
        w.key("title"); w.string(spec.title.renderString(key: s.rawKey, count: count))
        if let icon = spec.icon {
            let text = icon.renderString(key: s.rawKey, count: count)
            if !text.isEmpty { w.key("icon"); w.string(text) }
        }
        w.key("header"); writeSupplementary(spec.header, kind: "header", spec: spec, section: index, rawKey: s.rawKey, count: count, into: &w)
        w.key("footer"); writeSupplementary(spec.footer, kind: "footer", spec: spec, section: index, rawKey: s.rawKey, count: count, into: &w)
        w.key("insets")
        w.beginObject()
        w.key("top"); w.double(spec.insets.top)
        w.key("left"); w.double(spec.insets.left)
        w.key("bottom"); w.double(spec.insets.bottom)
        w.key("right"); w.double(spec.insets.right)
        w.endObject()
        w.key("lineSpacing"); w.double(spec.lineSpacing)
        w.key("hidden"); w.bool(hidden)
        w.key("rowCount"); w.int(hidden ? 0 : count)
        w.key("totalRowCount"); w.int(count)
        w.key("firstTag"); w.int(tagStarts[index])
    }

    private func writeSupplementary(_ sup: SupplementarySpec?, kind: String, spec: SectionSpec, section: Int, rawKey: String, count: Int, into w: inout JSONWriter) {
        guard let sup else { w.null(); return }
        w.beginObject()
        w.key("title"); w.string(sup.title.renderString(key: rawKey, count: count))
        w.key("height"); w.double(sup.height)
        if let acc = spec.accessibility {
            w.key("accessibilityIdentifier")
            w.string(acc.includesSection ? "\(acc.identifier)_\(kind)_\(section)" : "\(acc.identifier)_\(kind)")
        }
        w.endObject()
    }

    // MARK: Whole answers

    /// `{"list","title","version","sectionCount","rowCount","totalRowCount","tagCount","sections":[…]}`.
    public func writeOutlineAnswer(list: String, version: Int64, view: ViewState, into w: inout JSONWriter) {
        w.beginObject()
        w.key("list"); w.string(list)
        w.key("title"); w.string(definition.title ?? definition.name)
        w.key("version"); w.int64(version)
        w.key("sectionCount"); w.int(sections.count)
        w.key("rowCount"); w.int(rowCount(in: view))
        w.key("totalRowCount"); w.int(totalRowCount)
        w.key("tagCount"); w.int(tagCount)
        w.key("sections")
        w.beginArray()
        for i in sections.indices { writeSection(i, view: view, into: &w) }
        w.endArray()
        w.endObject()
    }

    /// `{"list","version",["tag",]"indexPath","hidden","row"}` for a look-up answer; pass `tag`
    /// for the tag look-up.
    public func writeLocationAnswer(_ loc: RowLocation, list: String, version: Int64, tag: Int? = nil, into w: inout JSONWriter) {
        w.beginObject()
        w.key("list"); w.string(list)
        w.key("version"); w.int64(version)
        if let tag { w.key("tag"); w.int(tag) }
        w.key("indexPath")
        w.beginObject()
        w.key("section"); w.int(loc.indexPath.section)
        w.key("row"); w.int(loc.indexPath.row)
        w.endObject()
        w.key("hidden"); w.bool(loc.hidden)
        w.key("row"); writeRow(loc, into: &w)
        w.endObject()
    }

    /// `{"list","version","sections":[indexes]}` for sections of a type.
    public func writeSectionIndexesAnswer(type: String, list: String, version: Int64, into w: inout JSONWriter) {
        w.beginObject()
        w.key("list"); w.string(list)
        w.key("version"); w.int64(version)
        w.key("sections")
        w.beginArray()
        for i in sectionIndexes(ofType: type) { w.int(i) }
        w.endArray()
        w.endObject()
    }

    /// Writes all sections with all their rows (hidden ones included) — for tests and tools.
    public func writeFullContents(into w: inout JSONWriter) {
        w.beginArray()
        for i in sections.indices {
            w.beginObject()
            writeSectionMembers(i, view: ViewState(), into: &w)
            w.key("rows")
            w.beginArray()
            appendRows(section: i, start: 0, count: sections[i].rows.count, into: &w)
            w.endArray()
            w.endObject()
        }
        w.endArray()
    }
}
