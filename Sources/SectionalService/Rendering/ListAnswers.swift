import ListModel

/// The answers' envelopes: a list's JSON answers as the API serves them — the list name and
/// version around the pieces ListModel writes (sections, rows, batch-update members).
extension ListSnapshot {
    /// `{"list","title","version","sectionCount","rowCount","totalRowCount","tagCount","sections":[…]}`.
    public func writeOutlineAnswer(list: String, version: Int64, view: ViewState, into w: inout JSONWriter) {
        w.beginObject()
        w.key("list"); w.string(list)
        w.key("title"); w.string(definition.title ?? definition.name)
        w.key("version"); w.int64(version)
        w.key("sectionCount"); w.int(sectionCount)
        w.key("rowCount"); w.int(rowCount(in: view))
        w.key("totalRowCount"); w.int(totalRowCount)
        w.key("tagCount"); w.int(tagCount)
        w.key("sections")
        w.beginArray()
        for i in 0..<sectionCount { writeSection(i, view: view, into: &w) }
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

    /// Most bytes ``writePageAnswer(_:list:version:into:)`` writes for `page` of list `list`
    /// (each character of the name escaped at worst as `\uXXXX`): the capacity for its writer.
    public func pageAnswerBytesBound(_ page: Page, list: String) -> Int {
        var n = 128 + 6 * list.utf8.count + (page.nextPageToken?.utf8.count ?? 0) + 3 * 20
        for e in page.entries {
            n += sectionBytesBound(e.index) + 1 + rowBytesBound(section: e.index, start: e.rowOffset, count: e.rowCount)
        }
        return n
    }

    /// `{"list","version","sections":[…],"nextPageToken"?,"itemsBefore","itemsAfter"}`.
    public func writePageAnswer(_ page: Page, list: String, version: Int64, into w: inout JSONWriter) {
        w.beginObject()
        w.key("list"); w.string(list)
        w.key("version"); w.int64(version)
        w.key("sections")
        w.beginArray()
        for e in page.entries {
            writeSectionWithRows(e.index, view: page.view, start: e.rowOffset, count: e.rowCount, rowOffset: true, into: &w)
        }
        w.endArray()
        if let t = page.nextPageToken { w.key("nextPageToken"); w.string(t) }
        w.key("itemsBefore"); w.int(page.itemsBefore)
        w.key("itemsAfter"); w.int(page.itemsAfter)
        w.endObject()
    }

    /// `{"list","version","section":{Section…,"rows":[…]}}`.
    public func writeSectionRangeAnswer(_ range: SectionRange, list: String, version: Int64, into w: inout JSONWriter) {
        w.beginObject()
        w.key("list"); w.string(list)
        w.key("version"); w.int64(version)
        w.key("section")
        writeSectionWithRows(range.section, view: range.view, start: range.start, count: range.count, rowOffset: false, into: &w)
        w.endObject()
    }

    /// Writes `{"list","from","to","reload":false,"sections":{"deleted","inserted","moved","updated"},
    /// "rows":{"deleted","inserted","moved","updated"}}`; with `update == nil` (too large, or a
    /// definition change) the reload form ``writeReloadAnswer(list:from:to:into:)``.
    public static func writeChangesAnswer(_ update: BatchUpdate?, list: String, from: Int64, to: Int64, into w: inout JSONWriter) {
        guard let update else {
            writeReloadAnswer(list: list, from: from, to: to, into: &w)
            return
        }
        w.beginObject()
        w.key("list"); w.string(list)
        w.key("from"); w.int64(from)
        w.key("to"); w.int64(to)
        w.key("reload"); w.bool(false)

        update.writeMembers(into: &w)
        w.endObject()
    }

    /// Writes `{"list","from","to","reload":true}`: the client reloads the list.
    public static func writeReloadAnswer(list: String, from: Int64, to: Int64, into w: inout JSONWriter) {
        w.beginObject()
        w.key("list"); w.string(list)
        w.key("from"); w.int64(from)
        w.key("to"); w.int64(to)
        w.key("reload"); w.bool(true)
        w.endObject()
    }
}
