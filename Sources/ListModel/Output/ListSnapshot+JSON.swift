import JSONOutput

/// JSON output in the API shapes, written with ``JSONWriter``: the pieces answers are made of —
/// sections (``writeSection(_:view:into:)``, ``writeSectionWithRows(_:view:start:count:rowOffset:into:)``)
/// and rows (``writeRow(_:into:)``). The answers' envelopes (list name, version, paging members)
/// belong to the server that writes them.
///
/// Choices where the contract is silent: a section's `type` and `title` are always present (`""`
/// when not configured), `icon` is omitted when absent or empty (like a row's optional fields),
/// `header`/`footer` are absent when not configured (an optional member is absent, never `null`)
/// and otherwise `{"title","height"[,"accessibilityIdentifier"]}` with height defaulting to 28;
/// an outline's `title` falls back to the list name.
extension ListSnapshot {
    // MARK: Rows
    //
    // The row path touches no reference count: two server threads render pages from one shared
    // snapshot at once, and every retain/release of a shared object (a row, its bytes, a spec's
    // strings) would bounce that object's cache line between the cores. Rows are read borrowed
    // (see ``RowsView``), sections and specs in place, and section-level bytes are written once
    // per section, not per row (see ``RowEncoder``).

    /// Writes rows `start ..< start+count` of section `si` as array elements (no brackets).
    func appendRows(section si: Int, start: Int, count: Int, into w: inout JSONWriter) {
        guard count > 0 else { return }
        // Read before the closures: one that reads `self` copies the whole snapshot (a retain per
        // stored reference) on every call.
        let firstTag = tagStarts[si]
        sections.withUnsafeBufferPointer { secs in
            let node = secs.baseAddress! + si
            definition.sections.withUnsafeBufferPointer { specs in
                RowEncoder.withEncoder(section: si, spec: specs.baseAddress! + node.pointee.spec) { encoder in
                    var encoder = encoder
                    node.pointee.rows.withRowsView { rows in
                        var tag = firstTag + rows.tagOffset(ofRow: start)
                        rows.forEachSlice(from: start, count: count) { slice, first in
                            RowEncoder.touch(slice)
                            for j in 0..<slice.count {
                                slice[j]._withUnsafeGuaranteedRef { row in
                                    encoder.stage(row, rowIndex: first + j, tag: tag, to: &w)
                                    tag += row.tagLength
                                }
                            }
                        }
                    }
                    encoder.flush(to: &w)
                }
            }
        }
    }

    /// Most bytes ``appendRows(section:start:count:into:)`` writes for the same rows: their
    /// pre-encoded JSON plus ``RowEncoder``'s splice for each, digits counted for the section's
    /// largest row index and the list's largest tag. Reads each row's length, so it costs about
    /// what ``RowEncoder/touch(_:)`` costs, and the rows are in the processor's caches for the
    /// write that follows. Sizing an answer's writer by it leaves no room to copy away: a page of
    /// 50 rows reserved 420 bytes a row (about a quarter more than the demo's rows take), and
    /// the kept answer was copied into storage of its own size on every miss.
    public func rowBytesBound(section si: Int, start: Int, count: Int) -> Int {
        guard count > 0 else { return 0 }
        let tags = tagCount
        return sections.withUnsafeBufferPointer { secs in
            let node = secs.baseAddress! + si
            var bytes = 0
            node.pointee.rows.withRowsView { rows in
                rows.forEachSlice(from: start, count: count) { slice, _ in
                    for r in slice { bytes += r._withUnsafeGuaranteedRef { $0.jsonCount } }
                }
            }
            let splice = definition.sections.withUnsafeBufferPointer { specs in
                RowEncoder.spliceBound(section: si, spec: specs.baseAddress! + node.pointee.spec, rowCount: node.pointee.rows.count,
                                       tagCount: tags)
            }
            return bytes + count * splice
        }
    }

    /// Most bytes ``writeSectionMembers(_:view:into:)`` writes for section `index`, with room for
    /// a `rowOffset` member and the `rows` array's brackets.
    public func sectionBytesBound(_ index: Int) -> Int {
        // The pre-encoded text and its two `_<index>` suffixes; `{"index":…,"hidden":false,
        // "rowCount":…,"totalRowCount":…,"firstTag":…,"rowOffset":…,"rows":[]}` with six numbers.
        let text = sections.withUnsafeBufferPointer { $0[index].text?.bytes.count } ?? 1024
        return text + 2 * 21 + 96 + 6 * 20
    }

    /// Writes a located row's object.
    public func writeRow(_ loc: RowLocation, into w: inout JSONWriter) {
        let si = loc.indexPath.section
        definition.sections.withUnsafeBufferPointer { specs in
            RowEncoder.withEncoder(section: si, spec: specs.baseAddress! + sections[si].spec) { encoder in
                var encoder = encoder
                encoder.stage(loc.row, rowIndex: loc.indexPath.row, tag: loc.tag.location, to: &w)
                encoder.flush(to: &w)
            }
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

    // MARK: Tools

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
