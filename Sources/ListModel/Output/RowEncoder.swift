import JSONOutput

/// Writes row objects in the API shape: a row's pre-encoded bytes (see ``Row``) with the
/// members that depend on its position spliced in.
///
/// A row object is `head ‖ ,"indexPath":{"section":S,"row":R},"tag":{"location":T,"length":L}
/// ‖ body ‖ [,"accessibilityIdentifier":"<id>[_S][_R]"] ‖ tail ‖ }`, where head, body and tail
/// are the row's bytes cut at ``Row/headEnd`` and ``Row/bodyEnd``.
///
/// An encoder is made for one section by ``withEncoder(section:spec:_:)``, which writes the
/// section's constant pieces once into a stack buffer and lends the encoder to a closure (it
/// points into that buffer: never store it). Rows are assembled one after another, commas
/// between, in the same buffer (the stage) and reach the writer in one append when it fills up
/// or at ``flush(to:)``: no reference count touched, and one capacity check for every twenty
/// or so rows of the demo's size. Appending each row to the writer on its own (`Array.append(contentsOf:)` and the
/// comma) made a row 692 instructions instead of 559 (callgrind, random pages by token).
struct RowEncoder {
    /// Digits of the largest number written (`UInt.max` has 20).
    private static let maxDigits = 20
    private static let indexPathSection: StaticString = ",\"indexPath\":{\"section\":"
    private static let indexPathRow: StaticString = ",\"row\":"
    private static let tagLocation: StaticString = "},\"tag\":{\"location\":"
    private static let tagLength: StaticString = ",\"length\":"

    /// Room for the section part: `,"indexPath":{"section":S,"row":`.
    private static let sectionPartSpace = indexPathSection.utf8CodeUnitCount + maxDigits + indexPathRow.utf8CodeUnitCount
    /// Most bytes after the section part up to the body: `R},"tag":{"location":T,"length":L}`.
    private static let positionTailSpace = maxDigits + tagLocation.utf8CodeUnitCount + maxDigits
        + tagLength.utf8CodeUnitCount + maxDigits + 1
    /// Most bytes of one `_N` accessibility suffix.
    private static let suffixSpace = 1 + maxDigits
    /// Room to stage rows in the section's buffer (on the stack); a larger row gets a buffer of
    /// its own.
    private static let stageSpace = 8192

    /// The section's buffer: section part at 0, accessibility part at `accStart`, the stage at
    /// `rowStart`.
    private let scratch: UnsafeMutablePointer<UInt8>
    private let sectionPartCount: Int
    private let accStart = RowEncoder.sectionPartSpace
    /// Bytes of `,"accessibilityIdentifier":"<id>[_S]` (no closing quote); -1 without one.
    private let accCount: Int
    private let accIncludesRow: Bool
    private let rowStart: Int
    /// Bytes in the stage, not yet appended to the writer.
    private var staged = 0
    /// Whether an element was begun in the writer's array (so the next one needs a comma).
    private var started = false

    private init(scratch: UnsafeMutablePointer<UInt8>, sectionPartCount: Int, accCount: Int, accIncludesRow: Bool, rowStart: Int) {
        self.scratch = scratch
        self.sectionPartCount = sectionPartCount
        self.accCount = accCount
        self.accIncludesRow = accIncludesRow
        self.rowStart = rowStart
    }

    /// Lends `body` an encoder for the rows of section `section` made by `spec` (read in place).
    @inline(__always)
    static func withEncoder<R>(section: Int, spec: UnsafePointer<SectionSpec>, _ body: (RowEncoder) -> R) -> R {
        let acc = spec.pointee.accessibility
        let prefixCount = spec.pointee.accessibilityPrefix.count
        let rowStart = sectionPartSpace + prefixCount + suffixSpace
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: rowStart + stageSpace) { buffer in
            let t = buffer.baseAddress!
            var n = JSONNumberText.write(indexPathSection, to: t)
            n += JSONNumberText.write(UInt(section), to: t + n)
            n += JSONNumberText.write(indexPathRow, to: t + n)
            var m = -1
            if let acc {
                let a = t + sectionPartSpace
                spec.pointee.accessibilityPrefix.withUnsafeBufferPointer { a.initialize(from: $0.baseAddress!, count: $0.count) }
                m = prefixCount
                if acc.includesSection { a[m] = ASCII.underscore; m += 1; m += JSONNumberText.write(UInt(section), to: a + m) }
            }
            return body(RowEncoder(scratch: t, sectionPartCount: n, accCount: m, accIncludesRow: acc?.includesRow ?? false,
                                   rowStart: rowStart))
        }
    }

    /// Stages the object of `row` at row `rowIndex` of the section, its tag range starting at
    /// `tag`, as the next element of the array `w` has open; ``flush(to:)`` after the last one.
    @inline(__always)
    mutating func stage(_ row: Row, rowIndex: Int, tag: Int, to w: inout JSONWriter) {
        let worst = row.jsonCount + sectionPartCount + RowEncoder.positionTailSpace
            + max(0, accCount) + RowEncoder.suffixSpace + 3
        if staged + worst > RowEncoder.stageSpace { flush(to: &w) }
        let stage = scratch + rowStart
        if started {
            stage[staged] = ASCII.comma
            staged += 1
        } else {
            w.rawValueBegin()   // nothing is staged yet: the writer adds a comma if its array needs one
            started = true
        }
        if staged + worst <= RowEncoder.stageSpace {
            staged += assemble(row, rowIndex: rowIndex, tag: tag, at: stage + staged)
        } else {
            flush(to: &w)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: worst) { buffer in
                let r = buffer.baseAddress!
                w.raw(UnsafeBufferPointer(start: r, count: assemble(row, rowIndex: rowIndex, tag: tag, at: r)))
            }
        }
    }

    /// Most bytes ``stage(_:rowIndex:tag:to:)`` adds to a row's pre-encoded JSON in section
    /// `section` made by `spec` (read in place): the position members, the accessibility identifier's suffixes
    /// and the comma, with row indexes below `rowCount` and tags and tag lengths at most
    /// `tagCount`. With the rows' own bytes, the exact room a page's rows need at most (see
    /// ``ListSnapshot/rowBytesBound(section:start:count:)``).
    static func spliceBound(section: Int, spec: UnsafePointer<SectionSpec>, rowCount: Int, tagCount: Int) -> Int {
        let rowDigits = JSONNumberText.digitCount(UInt(rowCount)), tagDigits = JSONNumberText.digitCount(UInt(tagCount))
        let sectionDigits = JSONNumberText.digitCount(UInt(section))
        var n = indexPathSection.utf8CodeUnitCount + sectionDigits + indexPathRow.utf8CodeUnitCount + rowDigits
            + tagLocation.utf8CodeUnitCount + tagDigits + tagLength.utf8CodeUnitCount + tagDigits + 3  // `}` twice, the comma
        if let acc = spec.pointee.accessibility {
            n += spec.pointee.accessibilityPrefix.count + 1  // the closing quote
            if acc.includesSection { n += 1 + sectionDigits }
            if acc.includesRow { n += 1 + rowDigits }
        }
        return n
    }

    /// Appends the staged rows to `w`.
    @inline(__always)
    mutating func flush(to w: inout JSONWriter) {
        guard staged > 0 else { return }
        w.raw(UnsafeBufferPointer(start: scratch + rowStart, count: staged))
        staged = 0
    }

    /// Reads each row, and every cache line of its pre-encoded JSON, with plain loads before
    /// the rows are written one by one. Rows of a page sit far apart in memory (made in the
    /// order records came, kept in the list's order), so each is a few cache misses; written
    /// one after another, each row's misses wait for the row before to be copied, while these
    /// loads, independent of each other, overlap theirs. Measured with random pages by token
    /// (50 rows of a 100,000-row list, `wrk -t1 -c32`, two servers alternating, then swapped):
    /// 25,400–26,000 → 30,000–33,300 requests/s, server CPU 51–53 → 35–42 µs a request.
    @inline(__always)
    static func touch(_ rows: UnsafeBufferPointer<Unmanaged<Row>>) {
        var touched = 0
        for r in rows {
            r._withUnsafeGuaranteedRef { row in
                let n = row.jsonCount
                row.withJSON { e in
                    var o = 0
                    while o < n { touched &+= Int(e[o]); o += 64 }
                    if n > 0 { touched &+= Int(e[n - 1]) }
                }
            }
        }
        if touched < 0 { preconditionFailure("unreachable: a sum of bytes") }
    }

    /// Writes the row object at `r` (room for the worst case); returns its length.
    @inline(__always)
    private func assemble(_ row: Row, rowIndex: Int, tag: Int, at r: UnsafeMutablePointer<UInt8>) -> Int {
        let headEnd = row.headEnd, bodyEnd = row.bodyEnd, total = row.jsonCount
        return row.withJSON { e in
            r.initialize(from: e, count: headEnd)
            var n = headEnd
            (r + n).initialize(from: scratch, count: sectionPartCount); n += sectionPartCount
            n += JSONNumberText.write(UInt(rowIndex), to: r + n)
            n += JSONNumberText.write(RowEncoder.tagLocation, to: r + n)
            n += JSONNumberText.write(UInt(tag), to: r + n)
            n += JSONNumberText.write(RowEncoder.tagLength, to: r + n)
            n += JSONNumberText.write(UInt(row.tagLength), to: r + n)
            r[n] = ASCII.closeBrace; n += 1
            (r + n).initialize(from: e + headEnd, count: bodyEnd - headEnd); n += bodyEnd - headEnd
            if accCount >= 0 {
                (r + n).initialize(from: scratch + accStart, count: accCount); n += accCount
                if accIncludesRow { r[n] = ASCII.underscore; n += 1; n += JSONNumberText.write(UInt(rowIndex), to: r + n) }
                r[n] = ASCII.quote; n += 1
            }
            (r + n).initialize(from: e + bodyEnd, count: total - bodyEnd); n += total - bodyEnd
            r[n] = ASCII.closeBrace; n += 1
            return n
        }
    }
}
