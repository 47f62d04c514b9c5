import ListModel

/// A record on its way in, in the one form a write carries it: its id, its JSON object (for the
/// lists) and that object's bytes (for storage), made together once at the edge.
public struct IncomingRecord: Sendable {
    public let id: String
    /// The object, `"id"` included.
    public let object: JSONObject
    /// ``object`` as JSON text, as stored and echoed.
    public let json: [UInt8]

    /// The record `object` with id `id`: `"id"` is put first when the object has none (callers
    /// check that a given one equals `id`).
    public init(id: String, object: JSONObject) {
        self.id = id
        let complete = object["id"] == nil ? JSONObject([(key: "id", value: .string(id))] + object.members) : object
        self.object = complete
        var writer = JSONWriter(capacity: 256)
        writer.value(.object(complete))
        json = writer.bytes
    }

    /// The object as a JSON value.
    public var value: JSONValue { .object(object) }
}
