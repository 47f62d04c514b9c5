import JSONOutput

/// A row's optional members beyond its texts: `image`, `accessory`, `enabled`, `value`,
/// `actions` and `data`. Held by one reference, so a row template without them costs a nil check.
/// Immutable.
public final class RowExtras: Sendable, Equatable {
    /// `image`: a template rendering a URL.
    public let image: Template?
    /// `accessory`: a template rendering one of ``RowAccessory``'s names.
    public let accessory: Template?
    /// `enabled`: a template rendering `true` or `false` (a JSON boolean is a constant one).
    public let enabled: Template?
    /// `value`: a toggle's state, a template rendering `true` or `false`.
    public let value: Template?
    /// `actions`: swipe actions, in order.
    public let actions: [RowAction]
    /// `data`: record fields copied into the row as they are; nil when not asked for.
    public let data: [FieldPath]?

    init(image: Template?, accessory: Template?, enabled: Template?, value: Template?, actions: [RowAction], data: [FieldPath]?) {
        self.image = image
        self.accessory = accessory
        self.enabled = enabled
        self.value = value
        self.actions = actions
        self.data = data
    }

    /// The templates among the members (`image`, `accessory`, `enabled`, `value`, action titles).
    var templates: [Template] {
        [image, accessory, enabled, value].compactMap { $0 } + actions.map(\.title)
    }

    /// nil when every member is absent.
    static func make(image: Template?, accessory: Template?, enabled: Template?, value: Template?, actions: [RowAction],
                     data: [FieldPath]?) -> RowExtras? {
        if image == nil, accessory == nil, enabled == nil, value == nil, actions.isEmpty, data == nil { return nil }
        return RowExtras(image: image, accessory: accessory, enabled: enabled, value: value, actions: actions, data: data)
    }

    /// Equal members.
    public static func == (a: RowExtras, b: RowExtras) -> Bool {
        a === b || (a.image == b.image && a.accessory == b.accessory && a.enabled == b.enabled && a.value == b.value
            && a.actions == b.actions && a.data == b.data)
    }

    /// Appends the members for `record` to a row's JSON: `,"image":…` (when non-empty),
    /// `,"accessory":…` (when it names an accessory other than `none`), `,"enabled":false` (only
    /// when false), `,"value":true|false` (when it renders one of them), `,"actions":[…]` (those
    /// with a non-empty title; none: absent) and `,"data":{…}` (fields present and not null, and
    /// inside them no object member that is null).
    /// `scratch` is working space.
    func append(record: JSONObject, to json: inout ByteBuffer, scratch: inout ByteBuffer) {
        if let image { text(image, ",\"image\":", record, &json, &scratch) }
        if let accessory {
            scratch.removeAll()
            accessory.render(record: record, into: &scratch)
            if let named = RowAccessory(rawValue: scratch.string), named != .none {
                json.append(",\"accessory\":")
                JSONWriter.appendEscaped(named.rawValue, to: &json)
            }
        }
        if let enabled, RowExtras.flag(enabled, record, &scratch) == false { json.append(",\"enabled\":false") }
        if let value, let on = RowExtras.flag(value, record, &scratch) { json.append(on ? ",\"value\":true" : ",\"value\":false") }
        var opened = false
        for action in actions {
            scratch.removeAll()
            action.title.render(record: record, into: &scratch)
            guard !scratch.isEmpty else { continue }
            json.append(opened ? ",{\"id\":" : ",\"actions\":[{\"id\":")
            opened = true
            JSONWriter.appendEscaped(action.id, to: &json)
            json.append(",\"title\":")
            scratch.withBytes { JSONWriter.appendEscaped($0, to: &json) }
            json.append(action.style == .destructive ? ",\"style\":\"destructive\"}" : ",\"style\":\"default\"}")
        }
        if opened { json.append(UInt8(ascii: "]")) }
        if let data {
            var w = JSONWriter(capacity: 64)
            w.beginObject()
            for field in data {
                guard let v = field.lookup(in: record), v != .null else { continue }
                w.key(field.description)
                RowExtras.write(v, into: &w)
            }
            w.endObject()
            json.append(",\"data\":")
            json.append(w.bytes)
        }
    }

    /// Writes `v` as stored but for object members that are null, left out at any depth, so
    /// that no member of a row is ever `null`. An array keeps its null elements: they hold the
    /// places of the ones after them.
    private static func write(_ v: JSONValue, into w: inout JSONWriter) {
        switch v {
        case .array(let elements):
            w.beginArray()
            for element in elements { write(element, into: &w) }
            w.endArray()
        case .object(let object):
            w.beginObject()
            for member in object.members where member.value != .null {
                w.key(member.key)
                write(member.value, into: &w)
            }
            w.endObject()
        default:
            w.value(v)
        }
    }

    private func text(_ t: Template, _ key: StaticString, _ record: JSONObject, _ json: inout ByteBuffer, _ scratch: inout ByteBuffer) {
        scratch.removeAll()
        t.render(record: record, into: &scratch)
        guard !scratch.isEmpty else { return }
        json.append(key)
        scratch.withBytes { JSONWriter.appendEscaped($0, to: &json) }
    }

    /// `true`/`false` for a template rendering exactly that text; nil for anything else.
    private static func flag(_ t: Template, _ record: JSONObject, _ scratch: inout ByteBuffer) -> Bool? {
        scratch.removeAll()
        t.render(record: record, into: &scratch)
        return scratch.withBytes { rendered in
            if rendered.elementsEqual("true".utf8) { return true }
            if rendered.elementsEqual("false".utf8) { return false }
            return nil
        }
    }
}
