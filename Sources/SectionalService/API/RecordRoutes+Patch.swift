import HTTPServer
import ListModel
import ListStore

/// Partial updates: `PATCH` of a record and a batch's `patch`, as JSON Merge Patch (RFC 7396),
/// merged when the commit runs (see ``RecordPatch``).
extension RecordRoutes {
    /// The media types a `PATCH` body may have: a merge patch, or plain JSON taken as one.
    static let patchMediaTypes = ["application/merge-patch+json", "application/json"]

    /// `PATCH /v1/collections/{c}/records/{id}` → `200 {"collection","id","record","version"}`
    /// with the merged record; `404 record-not-found` when there is none. `If-Match` /
    /// `If-None-Match` are checked first (`412`), as for `PUT`.
    func patch(_ request: Request) throws(HTTPError) -> Response {
        let collection = try request.name("c", kind: "collection")
        let id = try request.name("id", kind: "record")
        guard let changes = try request.jsonObjectBody(mediaTypes: Self.patchMediaTypes) else {
            throw Problem.invalidJSON("The body must be a JSON object.")
        }
        _ = try Self.record(changes, id: id, at: nil)
        let patch = RecordPatch(collection: collection, id: id, changes: changes)
        let conditions = RecordConditions.conditions(request, collection: collection, id: id)
        return context.write([.patch(patch)], conditions: conditions) { result throws(HTTPError) in
            try Self.refusal(result, patches: [patch], collection: collection)
            guard case .merged(let record) = patch.outcome else { throw HTTPError.internalError }
            return RecordRoutes.recordAnswer(record, collection: collection, version: result.sequence)
        }
    }

    /// The answer to a write of one record (`PUT` or `PATCH`): the record as stored, the version
    /// that holds it, and that version as the record's entity tag.
    static func recordAnswer(_ record: IncomingRecord, collection: String, version: Int64, status: HTTPStatus = .ok) -> Response {
        var response = jsonAnswer(status: status) { w in
            w.beginObject()
            w.key("collection"); w.string(collection)
            w.key("id"); w.string(record.id)
            w.key("record"); w.rawValue(record.json)
            w.key("version"); w.int64(version)
            w.endObject()
        }
        response.headers.add("ETag", RecordConditions.tag(version))
        return response
    }

    /// A batch's `patch` array: objects with a string `"id"`, in order.
    static func patches(_ values: [JSONValue], collection: String) throws(HTTPError) -> [RecordPatch] {
        var patches: [RecordPatch] = []
        patches.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            guard let object = value.objectValue, let id = object["id"]?.stringValue else {
                throw Problem.invalidRequest("patch[\(index)] must be a JSON object with a string \"id\".")
            }
            guard Names.isValid(id) else { throw Problem.invalidName("record", id) }
            patches.append(RecordPatch(collection: collection, id: id, changes: object))
        }
        return patches
    }

    /// Why a commit wrote nothing, if it did not: `404 record-not-found` for a patch of a missing
    /// record, else `412 precondition-failed`.
    static func refusal(_ result: CommitResult, patches: [RecordPatch], collection: String) throws(HTTPError) {
        guard !result.conflicts.isEmpty else { return }
        for patch in patches {
            if case .missing = patch.outcome { throw Problem.recordNotFound(collection, patch.id) }
        }
        throw RecordConditions.failed(result.conflicts)
    }
}
