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
    /// with a non-empty title; none: absent) and `,"data":{…}` (fields present and not null).
    /// `scratch` is working space.
    func append(record: JSONObject, to json: inout [UInt8], scratch: inout [UInt8]) {
        if let image { text(image, ",\"image\":", record, &json, &scratch) }
        if let accessory {
            scratch.removeAll(keepingCapacity: true)
            accessory.render(record: record, into: &scratch)
            if let named = RowAccessory.named(scratch), named != .none {
                RowExtras.raw(",\"accessory\":", &json)
                JSONWriter.appendEscaped(named.rawValue, to: &json)
            }
        }
        if let enabled, RowExtras.flag(enabled, record, &scratch) == false { RowExtras.raw(",\"enabled\":false", &json) }
        if let value, let on = RowExtras.flag(value, record, &scratch) { RowExtras.raw(on ? ",\"value\":true" : ",\"value\":false", &json) }
        var opened = false
        for action in actions {
            scratch.removeAll(keepingCapacity: true)
            action.title.render(record: record, into: &scratch)
            guard !scratch.isEmpty else { continue }
            RowExtras.raw(opened ? ",{\"id\":" : ",\"actions\":[{\"id\":", &json)
            opened = true
            JSONWriter.appendEscaped(action.id, to: &json)
            RowExtras.raw(",\"title\":", &json)
            scratch.withUnsafeBufferPointer { JSONWriter.appendEscaped($0, to: &json) }
            RowExtras.raw(action.style == .destructive ? ",\"style\":\"destructive\"}" : ",\"style\":\"default\"}", &json)
        }
        if opened { json.append(UInt8(ascii: "]")) }
        if let data {
            var w = JSONWriter(capacity: 64)
            w.beginObject()
            for field in data {
                guard let v = field.lookup(in: record), v != .null else { continue }
                w.key(field.description)
                w.value(v)
            }
            w.endObject()
            RowExtras.raw(",\"data\":", &json)
            json.append(contentsOf: w.bytes)
        }
    }

    private func text(_ t: Template, _ key: StaticString, _ record: JSONObject, _ json: inout [UInt8], _ scratch: inout [UInt8]) {
        scratch.removeAll(keepingCapacity: true)
        t.render(record: record, into: &scratch)
        guard !scratch.isEmpty else { return }
        RowExtras.raw(key, &json)
        scratch.withUnsafeBufferPointer { JSONWriter.appendEscaped($0, to: &json) }
    }

    /// `true`/`false` for a template rendering exactly that text; nil for anything else.
    private static func flag(_ t: Template, _ record: JSONObject, _ scratch: inout [UInt8]) -> Bool? {
        scratch.removeAll(keepingCapacity: true)
        t.render(record: record, into: &scratch)
        if scratch.elementsEqual("true".utf8) { return true }
        if scratch.elementsEqual("false".utf8) { return false }
        return nil
    }

    private static func raw(_ s: StaticString, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
}
