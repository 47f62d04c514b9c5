/// JSON output in the API shapes, written with ``JSONWriter``.
///
/// Two levels: whole answers that take the list name and version (`write…Answer`), and the
/// pieces they are made of (``writeSection(_:view:into:)``, ``writeRow(_:into:)``) for answers
/// the service composes itself (e.g. the view toggle answer).
///
/// Choices where the contract is silent: a section's `type` and `title` are always present (`""`
/// when not configured), `icon` is omitted when absent or empty (like a row's optional fields),
/// `header`/`footer` are `null` when absent and otherwise `{"title","height"[,
/// "accessibilityIdentifier"]}` with height defaulting to 28; an outline's `title` falls back to
/// the list name.
extension ListSnapshot {
    // MARK: Rows
    //
    // The row path touches no reference count: two server threads render pages from one shared
    // snapshot at once, and every retain/release of a shared object (a row, its bytes, a spec's
    // strings) would bounce that object's cache line between the cores. Rows are read through
    // `Unmanaged` (see ``RowsView``), key bytes come from
    // `StaticString`s, and section-level bytes are computed once per section, not per row.

    /// Per-section constants for writing its rows, on the stack.
    private struct RowContext {
        /// `,"indexPath":{"section":S,"row":` — the start of every row's middle part.
        var middlePrefixCount = 0
        /// Accessibility: `,"accessibilityIdentifier":"<id>[_S]` at `accStart`, or none.
        var hasAccessibility = false
        var accIncludesRow = false
        var accIncludesSection = false
        var accPrefixCount = 0
        /// Where the accessibility part starts in the scratch buffer (after the middle part).
        static let accStart = 96
        /// Where a row is assembled (after the accessibility part), and the room there: a row
        /// that fits is written with one append (fewer capacity checks than seven pieces).
        var rowStart = 0
        static let rowSpace = 768
    }

    /// Writes rows `start ..< start+count` of section `si` as array elements (no brackets).
    func appendRows(section si: Int, start: Int, count: Int, into w: inout JSONWriter) {
        guard count > 0 else { return }
        // Everything read from the snapshot is taken first, in scopes that only read, as plain
        // pointers and values (see `RowsView`); writing then touches no shared object.
        let (rows, specIndex) = sections.withUnsafeBufferPointer { ($0[si].rows.unretained, $0[si].spec) }
        var tag = tagStarts[si] + rows.tagOffset(ofRow: start)
        var ctx = RowContext()
        let accPrefix: UnsafeBufferPointer<UInt8> = definition.sections.withUnsafeBufferPointer { specs in
            let spec = specs.baseAddress! + specIndex
            guard let acc = spec.pointee.accessibility else { return UnsafeBufferPointer(start: nil, count: 0) }
            ctx.hasAccessibility = true
            ctx.accIncludesRow = acc.includesRow
            ctx.accIncludesSection = acc.includesSection
            return spec.pointee.accessibilityPrefix.withUnsafeBufferPointer { $0 }
        }
        ctx.rowStart = RowContext.accStart + accPrefix.count + 48
        let scratchSize = ctx.rowStart + RowContext.rowSpace
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scratchSize) { scratch in
            let t = scratch.baseAddress!
            var n = JSONNumberText.write(",\"indexPath\":{\"section\":", to: t)
            n += JSONNumberText.write(UInt(si), to: t + n)
            n += JSONNumberText.write(",\"row\":", to: t + n)
            ctx.middlePrefixCount = n
            if ctx.hasAccessibility {
                let a = t + RowContext.accStart
                if let base = accPrefix.baseAddress { a.initialize(from: base, count: accPrefix.count) }
                var m = accPrefix.count
                if ctx.accIncludesSection { a[m] = 0x5F; m += 1; m += JSONNumberText.write(UInt(si), to: a + m) }
                ctx.accPrefixCount = m
            }
            rows.forEachSlice(from: start, count: count) { slice, first in
                for j in 0..<slice.count {
                    slice[j]._withUnsafeGuaranteedRef { row in
                        appendRow(row, rowIndex: first + j, tag: tag, ctx: ctx, scratch: t, into: &w)
                        tag += row.tagLength
                    }
                }
            }
        }
    }

    /// Appends one row object; `scratch` holds the section's prefixes (see ``RowContext``).
    @inline(__always)
    private func appendRow(_ row: Row, rowIndex: Int, tag: Int, ctx: RowContext, scratch t: UnsafeMutablePointer<UInt8>,
                           into w: inout JSONWriter) {
        w.rawValueBegin()
        let e = row.json
        let headEnd = row.headEnd, bodyEnd = row.bodyEnd, total = Int(row.jsonCount)
        let worst = total + ctx.middlePrefixCount + 96 + ctx.accPrefixCount + 24
        if worst <= RowContext.rowSpace {
            // Assemble the whole row on the stack, then append it at once.
            let r = t + ctx.rowStart
            var n = 0
            r.initialize(from: e, count: headEnd); n = headEnd
            (r + n).initialize(from: t, count: ctx.middlePrefixCount); n += ctx.middlePrefixCount
            n += JSONNumberText.write(UInt(rowIndex), to: r + n)
            n += JSONNumberText.write("},\"tag\":{\"location\":", to: r + n)
            n += JSONNumberText.write(UInt(tag), to: r + n)
            n += JSONNumberText.write(",\"length\":", to: r + n)
            n += JSONNumberText.write(UInt(row.tagLength), to: r + n)
            r[n] = 0x7D; n += 1
            (r + n).initialize(from: e + headEnd, count: bodyEnd - headEnd); n += bodyEnd - headEnd
            if ctx.hasAccessibility {
                (r + n).initialize(from: t + RowContext.accStart, count: ctx.accPrefixCount); n += ctx.accPrefixCount
                if ctx.accIncludesRow { r[n] = 0x5F; n += 1; n += JSONNumberText.write(UInt(rowIndex), to: r + n) }
                r[n] = 0x22; n += 1
            }
            (r + n).initialize(from: e + bodyEnd, count: total - bodyEnd); n += total - bodyEnd
            r[n] = 0x7D; n += 1
            w.bytes.append(contentsOf: UnsafeBufferPointer(start: r, count: n))
            return
        }
        w.bytes.append(contentsOf: UnsafeBufferPointer(start: e, count: headEnd))
        // `,"indexPath":{"section":S,"row":R},"tag":{"location":T,"length":L}`
        var n = ctx.middlePrefixCount
        n += JSONNumberText.write(UInt(rowIndex), to: t + n)
        n += JSONNumberText.write("},\"tag\":{\"location\":", to: t + n)
        n += JSONNumberText.write(UInt(tag), to: t + n)
        n += JSONNumberText.write(",\"length\":", to: t + n)
        n += JSONNumberText.write(UInt(row.tagLength), to: t + n)
        t[n] = 0x7D
        w.bytes.append(contentsOf: UnsafeBufferPointer(start: t, count: n + 1))
        w.bytes.append(contentsOf: UnsafeBufferPointer(start: e + headEnd, count: bodyEnd - headEnd))
        if ctx.hasAccessibility {
            let a = t + RowContext.accStart
            var m = ctx.accPrefixCount
            if ctx.accIncludesRow { a[m] = 0x5F; m += 1; m += JSONNumberText.write(UInt(rowIndex), to: a + m) }
            a[m] = 0x22
            w.bytes.append(contentsOf: UnsafeBufferPointer(start: a, count: m + 1))
        }
        w.bytes.append(contentsOf: UnsafeBufferPointer(start: e + bodyEnd, count: total - bodyEnd))
        w.bytes.append(0x7D)
    }

    /// Writes a located row's object.
    public func writeRow(_ loc: RowLocation, into w: inout JSONWriter) {
        let si = loc.indexPath.section
        let spec = definition.sections[sections[si].spec]
        let row = loc.row
        do {
            let e = row.json
            let headEnd = row.headEnd, bodyEnd = row.bodyEnd, total = Int(row.jsonCount)
            w.rawValueBegin()
            w.bytes.append(contentsOf: UnsafeBufferPointer(start: e, count: headEnd))
            JSONNumberText.append(",\"indexPath\":{\"section\":", to: &w.bytes)
            JSONNumberText.appendInt(Int64(si), to: &w.bytes)
            JSONNumberText.append(",\"row\":", to: &w.bytes)
            JSONNumberText.appendInt(Int64(loc.indexPath.row), to: &w.bytes)
            JSONNumberText.append("},\"tag\":{\"location\":", to: &w.bytes)
            JSONNumberText.appendInt(Int64(loc.tag.location), to: &w.bytes)
            JSONNumberText.append(",\"length\":", to: &w.bytes)
            JSONNumberText.appendInt(Int64(row.tagLength), to: &w.bytes)
            w.bytes.append(0x7D)
            w.bytes.append(contentsOf: UnsafeBufferPointer(start: e + headEnd, count: bodyEnd - headEnd))
            if let acc = spec.accessibility {
                w.bytes.append(contentsOf: spec.accessibilityPrefix)
                if acc.includesSection { w.bytes.append(0x5F); JSONNumberText.appendInt(Int64(si), to: &w.bytes) }
                if acc.includesRow { w.bytes.append(0x5F); JSONNumberText.appendInt(Int64(loc.indexPath.row), to: &w.bytes) }
                w.bytes.append(0x22)
            }
            w.bytes.append(contentsOf: UnsafeBufferPointer(start: e + bodyEnd, count: total - bodyEnd))
            w.bytes.append(0x7D)
        }
    }

    // MARK: Sections

    /// Writes section `index` as a complete object.
    public func writeSection(_ index: Int, view: ViewState, into w: inout JSONWriter) {
        w.beginObject()
        writeSectionMembers(index, view: view, into: &w)
        w.endObject()
    }

    /// Writes the members of section `index` into an open object (to add e.g. `rows`).
    ///
    /// The members that depend only on the section's spec, key and row count come pre-encoded
    /// from ``SectionText`` (rendered when the snapshot was made); only the index, the hidden
    /// flag and the counts are written here.
    public func writeSectionMembers(_ index: Int, view: ViewState, into w: inout JSONWriter) {
        // Read first (no copies, see `RowsView`), then write.
        let (count, hidden, text): (Int, Bool, Unmanaged<SectionText>?) = sections.withUnsafeBufferPointer { secs in
            let node = secs.baseAddress! + index
            return (node.pointee.rows.count, view.isHidden(node.pointee.key), node.pointee.text.map { Unmanaged.passUnretained($0) })
        }
        w.key("index"); w.int(index)
        if let text {
            // The snapshot holds the text strongly for the duration of this call.
            text._withUnsafeGuaranteedRef { $0.write(index: index, into: &w) }
        } else {
            SectionText(definition.sections[sections[index].spec], node: sections[index]).write(index: index, into: &w)
        }
        w.key("hidden"); w.bool(hidden)
        w.key("rowCount"); w.int(hidden ? 0 : count)
        w.key("totalRowCount"); w.int(count)
        w.key("firstTag"); w.int(tagStarts[index])
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
