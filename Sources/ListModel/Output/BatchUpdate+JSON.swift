/// The `changes` answer, written with ``JSONWriter`` in the documented member order.
extension ListSnapshot {
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

        w.key("sections")
        w.beginObject()
        w.key("deleted"); writeInts(update.sections.deleted, into: &w)
        w.key("inserted"); writeInts(update.sections.inserted, into: &w)
        w.key("moved")
        w.beginArray()
        for m in update.sections.moved {
            w.beginObject()
            w.key("from"); w.int(m.from)
            w.key("to"); w.int(m.to)
            w.endObject()
        }
        w.endArray()
        w.key("updated"); writeInts(update.sections.updated, into: &w)
        w.endObject()

        w.key("rows")
        w.beginObject()
        w.key("deleted"); writePaths(update.rows.deleted, into: &w)
        w.key("inserted"); writePaths(update.rows.inserted, into: &w)
        w.key("moved")
        w.beginArray()
        for m in update.rows.moved {
            w.beginObject()
            w.key("from"); writePath(m.from, into: &w)
            w.key("to"); writePath(m.to, into: &w)
            w.key("updated"); w.bool(m.updated)
            w.endObject()
        }
        w.endArray()
        w.key("updated"); writePaths(update.rows.updated, into: &w)
        w.endObject()
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

    private static func writeInts(_ xs: [Int], into w: inout JSONWriter) {
        w.beginArray()
        for x in xs { w.int(x) }
        w.endArray()
    }

    private static func writePaths(_ ps: [ListIndexPath], into w: inout JSONWriter) {
        w.beginArray()
        for p in ps { writePath(p, into: &w) }
        w.endArray()
    }

    @inline(__always)
    private static func writePath(_ p: ListIndexPath, into w: inout JSONWriter) {
        w.beginObject()
        w.key("section"); w.int(p.section)
        w.key("row"); w.int(p.row)
        w.endObject()
    }
}
