/// A built row: its identity, its position key, and its JSON pre-encoded in pieces.
///
/// Everything but the index path, tag and accessibility identifier (which depend on position)
/// is encoded once when the row is built; rendering copies bytes and writes a few integers.
/// Layout of ``json``: `{"id":…,"type":…` ‖ `,"title":…[,"subtitle"…,"detail"…,"icon"…,
/// "badge"…],"height":N` ‖ `[,"action":…]` — the closing `}` is written at render time.
final class Row: Sendable {
    let id: String
    let type: String
    /// The raw section key this row belongs to (the `groupBy` string form; `""` otherwise).
    let groupKey: String
    let sortKey: SortKey
    let tagLength: Int
    let json: [UInt8]
    let headEnd: Int
    let bodyEnd: Int

    init(id: String, type: String, groupKey: String, sortKey: SortKey, tagLength: Int, json: [UInt8], headEnd: Int, bodyEnd: Int) {
        self.id = id
        self.type = type
        self.groupKey = groupKey
        self.sortKey = sortKey
        self.tagLength = tagLength
        self.json = json
        self.headEnd = headEnd
        self.bodyEnd = bodyEnd
    }

    /// A fingerprint of the served content that does not depend on position (for diffs).
    var contentFingerprint: UInt64 {
        var h = FNV1a()
        h.combine(json)
        return h.value
    }

    /// `true` when both rows would serve the same content at the same position.
    func sameContent(as other: Row) -> Bool { json == other.json && headEnd == other.headEnd && bodyEnd == other.bodyEnd }
}

/// Builds rows: renders templates and pre-encodes JSON. Holds a reusable scratch buffer.
struct RowFactory {
    private var scratch: [UInt8] = []

    init() { scratch.reserveCapacity(256) }

    private static let kId = Array("{\"id\":".utf8)
    private static let kType = Array(",\"type\":".utf8)
    private static let kTitle = Array(",\"title\":".utf8)
    private static let kSubtitle = Array(",\"subtitle\":".utf8)
    private static let kDetail = Array(",\"detail\":".utf8)
    private static let kIcon = Array(",\"icon\":".utf8)
    private static let kBadge = Array(",\"badge\":".utf8)
    private static let kHeight = Array(",\"height\":".utf8)
    private static let kAction = Array(",\"action\":".utf8)

    /// The row of a record under a data-bound spec.
    mutating func dataRow(binding: DataBinding, record: JSONObject, id: String) -> Row {
        let (tpl, type) = binding.template(for: record)
        var json: [UInt8] = []
        json.reserveCapacity(192)
        json.append(contentsOf: RowFactory.kId)
        JSONWriter.appendEscaped(id, to: &json)
        json.append(contentsOf: RowFactory.kType)
        JSONWriter.appendEscaped(type, to: &json)
        let headEnd = json.count
        json.append(contentsOf: RowFactory.kTitle)
        scratch.removeAll(keepingCapacity: true)
        tpl.title.render(record: record, into: &scratch)
        scratch.withUnsafeBufferPointer { JSONWriter.appendEscaped($0, to: &json) }
        optional(tpl.subtitle, RowFactory.kSubtitle, record, &json)
        optional(tpl.detail, RowFactory.kDetail, record, &json)
        optional(tpl.icon, RowFactory.kIcon, record, &json)
        optional(tpl.badge, RowFactory.kBadge, record, &json)
        json.append(contentsOf: RowFactory.kHeight)
        JSONNumberText.appendDouble(tpl.height, to: &json)
        let bodyEnd = json.count
        optional(tpl.action, RowFactory.kAction, record, &json)

        let groupKey: String
        if let g = binding.groupBy { groupKey = plainText(g.lookup(in: record)) } else { groupKey = "" }
        let sortKey: SortKey
        switch binding.sortBy.count {
        case 0: sortKey = .none
        case 1: sortKey = .one(SortValue(binding.sortBy[0].path.lookup(in: record)))
        default: sortKey = .many(binding.sortBy.map { SortValue($0.path.lookup(in: record)) })
        }
        return Row(id: id, type: type, groupKey: groupKey, sortKey: sortKey, tagLength: tpl.tagLength,
                   json: json, headEnd: headEnd, bodyEnd: bodyEnd)
    }

    @inline(__always)
    private mutating func optional(_ t: Template?, _ key: [UInt8], _ record: JSONObject, _ json: inout [UInt8]) {
        guard let t else { return }
        scratch.removeAll(keepingCapacity: true)
        t.render(record: record, into: &scratch)
        guard !scratch.isEmpty else { return }
        json.append(contentsOf: key)
        scratch.withUnsafeBufferPointer { JSONWriter.appendEscaped($0, to: &json) }
    }

    /// The row of a literal row at `position` in its spec.
    static func literalRow(_ r: LiteralRow, position: Int) -> Row {
        var json: [UInt8] = []
        json.append(contentsOf: kId)
        JSONWriter.appendEscaped(r.id, to: &json)
        json.append(contentsOf: kType)
        JSONWriter.appendEscaped(r.type, to: &json)
        let headEnd = json.count
        json.append(contentsOf: kTitle)
        JSONWriter.appendEscaped(r.title, to: &json)
        for (text, key) in [(r.subtitle, kSubtitle), (r.detail, kDetail), (r.icon, kIcon), (r.badge, kBadge)] {
            if let t = text, !t.isEmpty { json.append(contentsOf: key); JSONWriter.appendEscaped(t, to: &json) }
        }
        json.append(contentsOf: kHeight)
        JSONNumberText.appendDouble(r.height, to: &json)
        let bodyEnd = json.count
        if let a = r.action, !a.isEmpty { json.append(contentsOf: kAction); JSONWriter.appendEscaped(a, to: &json) }
        return Row(id: r.id, type: r.type, groupKey: "", sortKey: .one(.int(Int64(position))), tagLength: r.tagLength,
                   json: json, headEnd: headEnd, bodyEnd: bodyEnd)
    }
}
