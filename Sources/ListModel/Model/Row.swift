import JSONOutput

/// A built row: its identity, its position key, and its JSON pre-encoded in pieces.
///
/// Everything but the index path, tag and accessibility identifier (which depend on position)
/// is encoded once when the row is built; rendering copies bytes and writes a few integers.
/// Layout of the JSON bytes: `{"id":…,"type":…` ‖ `,"title":…[,"subtitle"…,"detail"…,"icon"…,
/// "badge"…],"height":N` ‖ `[,"action":…]` and the ``RowExtras`` members — the closing `}` is
/// written at render time. Every member is in the bytes, so rows compare by their bytes.
///
/// The bytes sit right after the row's fields, in the row's own allocation (tail-allocated
/// through `ManagedBufferPointer`; a `ManagedBuffer` subclass could not be `Sendable`): reading
/// a row touches one block of memory, not an object and a buffer elsewhere, and making one is one
/// allocation. Immutable after creation, hence `@unchecked Sendable`.
///
/// When a row's position is one string and its id, or its id alone (a spec sorted by one string
/// field, or not sorted), the UTF-8 of both comes first in those bytes, before the JSON, so that
/// ``compare(_:_:order:)`` orders two rows by reading bytes (see ``Fields/positionForm``).
final class Row: @unchecked Sendable {
    /// What a row holds besides its JSON bytes.
    struct Fields {
        let id: String
        let type: String
        /// The raw section key this row belongs to (the `groupBy` string form; `""` otherwise).
        let groupKey: String
        let sortKey: SortKey
        /// The ascending head of the row's position (see ``SortKey/head(id:)``): most comparisons
        /// in a search for a place are decided by it alone, without reading the key's strings.
        let keyHead: UInt64
        let tagLength: Int
        let jsonCount: Int32
        let headEnd32: Int32
        let bodyEnd32: Int32
        /// What the bytes before the JSON hold: ``PositionForm``'s raw value.
        let positionForm: UInt8
        /// UTF-8 bytes of the sort string, then of the id, before the JSON (0 when not kept).
        let nameCount: Int32
        let idCount: Int32
    }

    /// How a row keeps its position as bytes (see the type's doc).
    enum PositionForm: UInt8 {
        /// Not kept: compared by ``sortKey`` and ``id``.
        case notKept = 0
        /// No sort key (`.none`): the id's UTF-8.
        case id = 1
        /// One string sort value (`.one(.string)`): its UTF-8, then the id's.
        case stringThenID = 2
    }

    private typealias Storage = ManagedBufferPointer<Fields, UInt8>

    /// Rows are made by ``make(id:type:groupKey:sortKey:tagLength:json:headEnd:bodyEnd:)`` only.
    private init() { preconditionFailure("a row is allocated with its bytes") }

    deinit { storage.withUnsafeMutablePointerToHeader { _ = $0.deinitialize(count: 1) } }

    @inline(__always)
    private var storage: Storage { Storage(unsafeBufferObject: self) }

    /// A row holding a copy of `json` (`headEnd`/`bodyEnd` index into it).
    static func make(id: String, type: String, groupKey: String, sortKey: SortKey, tagLength: Int,
                     json bytes: UnsafeBufferPointer<UInt8>, headEnd: Int, bodyEnd: Int) -> Row {
        var name = "", form = PositionForm.notKept
        switch sortKey {
        case .none: form = .id
        case .one(.string(let s)): form = .stringThenID; name = s
        default: break
        }
        var idText = form == .notKept ? "" : id
        let nameCount = name.utf8.count, idCount = idText.utf8.count
        let fields = Fields(id: id, type: type, groupKey: groupKey, sortKey: sortKey, keyHead: sortKey.head(id: id),
                            tagLength: tagLength, jsonCount: Int32(bytes.count), headEnd32: Int32(headEnd),
                            bodyEnd32: Int32(bodyEnd), positionForm: form.rawValue, nameCount: Int32(nameCount),
                            idCount: Int32(idCount))
        let storage = Storage(bufferClass: Row.self, minimumCapacity: max(1, nameCount + idCount + bytes.count)) { _, _ in fields }
        storage.withUnsafeMutablePointerToElements { e in
            name.withUTF8 { if let b = $0.baseAddress { e.initialize(from: b, count: nameCount) } }
            idText.withUTF8 { if let b = $0.baseAddress { (e + nameCount).initialize(from: b, count: idCount) } }
            if let b = bytes.baseAddress { (e + nameCount + idCount).initialize(from: b, count: bytes.count) }
        }
        return unsafeDowncast(storage.buffer, to: Row.self)
    }

    var id: String { storage.header.id }
    var type: String { storage.header.type }
    var groupKey: String { storage.header.groupKey }
    var sortKey: SortKey { storage.header.sortKey }
    var keyHead: UInt64 { storage.header.keyHead }
    var tagLength: Int { storage.header.tagLength }
    var jsonCount: Int { Int(storage.header.jsonCount) }
    var headEnd: Int { Int(storage.header.headEnd32) }
    var bodyEnd: Int { Int(storage.header.bodyEnd32) }

    /// Lends the pre-encoded JSON (``jsonCount`` bytes) to `body`.
    @inline(__always)
    func withJSON<R>(_ body: (UnsafePointer<UInt8>) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { h, e in try body(e + Int(h.pointee.nameCount) + Int(h.pointee.idCount)) }
    }

    /// A row that only holds a position, for a search by sort key and id.
    static func position(_ key: SortKey, _ id: String) -> Row {
        make(id: id, type: "", groupKey: "", sortKey: key, tagLength: 0, json: UnsafeBufferPointer(start: nil, count: 0),
             headEnd: 0, bodyEnd: 0)
    }

    /// Three-way comparison of two rows' positions in `order`, as ``RowOrder/compare(_:_:_:_:)``
    /// of their sort keys and ids: from the bytes each keeps of its position when both keep them
    /// in the same form, which retains nothing and reads no `String`.
    ///
    /// Finding a row's place compares whole positions wherever the heads tie — in the demo's
    /// lists most probes inside a chunk, since names repeat — and reading `sortKey` and `id`
    /// out of a row copied them, a retain and a release each on strings other threads read:
    /// 27% of a batch's model work went to `swift_retain` and `swift_release`, half of it in
    /// those searches (`perf` of `sectional-bench batch`, 1,000,000 rows).
    @inline(__always)
    static func compare(_ a: Unmanaged<Row>, _ b: Unmanaged<Row>, order: UnsafePointer<RowOrder>) -> Int {
        a._withUnsafeGuaranteedRef { x in
            b._withUnsafeGuaranteedRef { y in
                x.storage.withUnsafeMutablePointers { xh, xe in
                    y.storage.withUnsafeMutablePointers { yh, ye in
                        let form = xh.pointee.positionForm
                        guard form != PositionForm.notKept.rawValue, form == yh.pointee.positionForm else {
                            return order.pointee.compare(x.sortKey, x.id, y.sortKey, y.id)
                        }
                        let xn = Int(xh.pointee.nameCount), yn = Int(yh.pointee.nameCount)
                        if form == PositionForm.stringThenID.rawValue {
                            let c = compareBytes(UnsafeBufferPointer(start: xe, count: xn), UnsafeBufferPointer(start: ye, count: yn))
                            if c != 0 { return order.pointee.isDescending(0) ? -c : c }
                        }
                        return compareBytes(UnsafeBufferPointer(start: xe + xn, count: Int(xh.pointee.idCount)),
                                            UnsafeBufferPointer(start: ye + yn, count: Int(yh.pointee.idCount)))
                    }
                }
            }
        }
    }

    /// `true` when both rows would serve the same content at the same position.
    func sameContent(as other: Row) -> Bool {
        headEnd == other.headEnd && bodyEnd == other.bodyEnd && jsonCount == other.jsonCount
            && withJSON { a in other.withJSON { b in memcmpBytes(a, b, jsonCount) == 0 } }
    }
}

/// Builds rows: renders templates and pre-encodes JSON. Holds reusable scratch buffers, so a
/// row costs one allocation (the row itself) plus any strings its keys need.
struct RowFactory: ~Copyable {
    private var scratch = ByteBuffer(capacity: 256)
    private var json = ByteBuffer(capacity: 512)

    /// The row of a record under a data-bound spec.
    mutating func dataRow(binding: DataBinding, record: JSONObject, id: String) -> Row {
        let type = binding.rowType(for: record)
        // The template is passed on, not bound to a local: a local copy retained and released
        // every member of `RowTemplate` per row.
        if let type, !binding.rowTypes.isEmpty, let template = binding.rowTypes[CodePointKey(type)] {
            return dataRow(binding: binding, template: template, type: type, record: record, id: id)
        }
        return dataRow(binding: binding, template: binding.row, type: type, record: record, id: id)
    }

    private mutating func dataRow(binding: DataBinding, template tpl: RowTemplate, type: String?, record: JSONObject,
                                  id: String) -> Row {
        json.removeAll()
        json.append("{\"id\":")
        JSONWriter.appendEscaped(id, to: &json)
        json.append(",\"type\":")
        JSONWriter.appendEscaped(type ?? tpl.type, to: &json)
        let headEnd = json.count
        json.append(",\"title\":")
        scratch.removeAll()
        tpl.title.render(record: record, into: &scratch)
        scratch.withBytes { JSONWriter.appendEscaped($0, to: &json) }
        optional(tpl.subtitle, ",\"subtitle\":", record)
        optional(tpl.detail, ",\"detail\":", record)
        optional(tpl.icon, ",\"icon\":", record)
        optional(tpl.badge, ",\"badge\":", record)
        json.append(",\"height\":")
        JSONNumberText.appendDouble(tpl.height, to: &json)
        let bodyEnd = json.count
        optional(tpl.action, ",\"action\":", record)
        if let extras = tpl.extras { extras.append(record: record, to: &json, scratch: &scratch) }

        let groupKey: String
        if let g = binding.groupBy { groupKey = plainText(g.lookup(in: record)) } else { groupKey = "" }
        let sortKey: SortKey
        switch binding.sortBy.count {
        case 0: sortKey = .none
        case 1: sortKey = .one(binding.sortBy[0].value(in: record))
        default: sortKey = .many(binding.sortBy.map { $0.value(in: record) })
        }
        return json.withBytes {
            Row.make(id: id, type: type ?? tpl.type, groupKey: groupKey, sortKey: sortKey, tagLength: tpl.tagLength,
                     json: $0, headEnd: headEnd, bodyEnd: bodyEnd)
        }
    }

    @inline(__always)
    private mutating func optional(_ t: Template?, _ key: StaticString, _ record: JSONObject) {
        guard let t else { return }
        scratch.removeAll()
        t.render(record: record, into: &scratch)
        guard !scratch.isEmpty else { return }
        json.append(key)
        scratch.withBytes { JSONWriter.appendEscaped($0, to: &json) }
    }

    /// The row of a literal row at `position` in its spec.
    static func literalRow(_ r: LiteralRow, position: Int) -> Row {
        var json = ByteBuffer()
        json.append("{\"id\":")
        JSONWriter.appendEscaped(r.id, to: &json)
        json.append(",\"type\":")
        JSONWriter.appendEscaped(r.type, to: &json)
        let headEnd = json.count
        json.append(",\"title\":")
        JSONWriter.appendEscaped(r.title, to: &json)
        let optionals: [(String?, StaticString)] = [(r.subtitle, ",\"subtitle\":"), (r.detail, ",\"detail\":"),
                                                     (r.icon, ",\"icon\":"), (r.badge, ",\"badge\":")]
        for (text, key) in optionals {
            if let t = text, !t.isEmpty { json.append(key); JSONWriter.appendEscaped(t, to: &json) }
        }
        json.append(",\"height\":")
        JSONNumberText.appendDouble(r.height, to: &json)
        let bodyEnd = json.count
        if let a = r.action, !a.isEmpty { json.append(",\"action\":"); JSONWriter.appendEscaped(a, to: &json) }
        if let extras = r.extras {
            var scratch = ByteBuffer()
            extras.append(record: JSONObject(), to: &json, scratch: &scratch)
        }
        return json.withBytes {
            Row.make(id: r.id, type: r.type, groupKey: "", sortKey: .one(.int(Int64(position))), tagLength: r.tagLength,
                     json: $0, headEnd: headEnd, bodyEnd: bodyEnd)
        }
    }
}
