import JSONOutput

/// A batch update's members in the `changes` answer, written with ``JSONWriter`` in the
/// documented order.
extension BatchUpdate {
    /// Writes the members `"sections":{"deleted","inserted","moved","updated"}` and
    /// `"rows":{"deleted","inserted","moved","updated"}` into an open object.
    public func writeMembers(into w: inout JSONWriter) {
        w.key("sections")
        w.beginObject()
        w.key("deleted"); Self.writeInts(sections.deleted, into: &w)
        w.key("inserted"); Self.writeInts(sections.inserted, into: &w)
        w.key("moved")
        w.beginArray()
        for m in sections.moved {
            w.beginObject()
            w.key("from"); w.int(m.from)
            w.key("to"); w.int(m.to)
            w.endObject()
        }
        w.endArray()
        w.key("updated"); Self.writeInts(sections.updated, into: &w)
        w.endObject()

        w.key("rows")
        w.beginObject()
        w.key("deleted"); Self.writePaths(rows.deleted, into: &w)
        w.key("inserted"); Self.writePaths(rows.inserted, into: &w)
        w.key("moved")
        w.beginArray()
        for m in rows.moved {
            w.beginObject()
            w.key("from"); Self.writePath(m.from, into: &w)
            w.key("to"); Self.writePath(m.to, into: &w)
            w.key("updated"); w.bool(m.updated)
            w.endObject()
        }
        w.endArray()
        w.key("updated"); Self.writePaths(rows.updated, into: &w)
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
