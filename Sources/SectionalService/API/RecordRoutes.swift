import Foundation
import HTTPServer
import ListModel
import ListStore

/// Records in collections: put, get, delete, list by id, and atomic batches.
struct RecordRoutes {
    let context: ServiceContext
    /// Collections a list with `access: users` reads: their records are private, so reading them
    /// directly needs what a write needs (the service token, when one is configured).
    var privateCollections: Set<String> { context.lists.privateCollections }

    private var serviceOnly: ServiceTokenGuard { ServiceTokenGuard(authenticator: context.authenticator) }

    func register(on router: inout Router) {
        router.guarded(ServiceTokenGuard.name, by: serviceOnly.check) { router in
            registerWrites(on: &router)
        }
        router.get("/v1/collections/{c}/records/{id}") { request in
            let collection = try request.name("c", kind: "collection")
            if privateCollections.contains(collection) { try serviceOnly.check(request) }
            try context.requireMinVersion(request)
            let id = try request.name("id", kind: "record")
            guard let record = try context.reading({ () throws(StoreError) in
                try context.lists.store.record(in: collection, id: id)
            }) else { throw Problem.recordNotFound(collection, id) }
            return EntityTag.answer(request, tag: RecordConditions.tag(record.version)) { .json(record.json) }
        }
        router.get("/v1/collections/{c}/records") { request in try list(request) }
    }

    /// The writes: the group's guard asks for the service token when one is configured.
    private func registerWrites(on router: inout Router) {
        router.put("/v1/collections/{c}/records/{id}") { request in
            let collection = try request.name("c", kind: "collection")
            let id = try request.name("id", kind: "record")
            guard let body = try request.jsonObjectBody() else { throw Problem.invalidJSON("The body must be a JSON object.") }
            let record = try Self.record(body, id: id, at: nil)
            let conditions = RecordConditions.conditions(request, collection: collection, id: id)
            return context.write([.upsert(collection: collection, record: record)],
                                 conditions: conditions) { result throws(HTTPError) in
                guard result.conflicts.isEmpty else { throw RecordConditions.failed(result.conflicts) }
                return RecordRoutes.recordAnswer(record, collection: collection, version: result.sequence,
                                    status: result.existed[0] ? .ok : .created)
            }
        }
        router.patch("/v1/collections/{c}/records/{id}") { request in try patch(request) }
        router.delete("/v1/collections/{c}/records/{id}") { request in
            let collection = try request.name("c", kind: "collection")
            let id = try request.name("id", kind: "record")
            let conditions = RecordConditions.conditions(request, collection: collection, id: id)
            return context.write([.delete(collection: collection, id: id)], conditions: conditions) { result throws(HTTPError) in
                guard result.conflicts.isEmpty else { throw RecordConditions.failed(result.conflicts) }
                guard result.existed[0] else { throw Problem.recordNotFound(collection, id) }
                return .empty()
            }
        }
        router.post("/v1/collections/{c}/batch") { request in try batch(request) }
    }

    /// The record a body gives for `id` (`400 invalid-request` when a body `id` differs). Compared
    /// by bytes: Swift's `==` takes canonically equivalent text as equal (U+212A KELVIN SIGN and
    /// `K`), and the record would be stored under one id with the other in its body.
    static func record(_ body: JSONObject, id: String, at position: String?) throws(HTTPError) -> IncomingRecord {
        if let given = body["id"], given.stringValue.map({ $0.utf8.elementsEqual(id.utf8) }) != true {
            let place = position.map { " (\($0))" } ?? ""
            throw Problem.invalidRequest("The record's \"id\" must be the string '\(Problem.echo(id))'\(place).")
        }
        return IncomingRecord(id: id, object: body)
    }

    private func list(_ request: Request) throws(HTTPError) -> Response {
        let collection = try request.name("c", kind: "collection")
        if privateCollections.contains(collection) { try serviceOnly.check(request) }
        try context.requireMinVersion(request)
        let size: Int
        do {
            size = try PageSize.parse(request.query("pageSize"))
        } catch {
            throw Problem.invalidPageSize(error.text)
        }
        var after: String?
        if let token = request.query("pageToken"), !token.isEmpty {   // empty: the first page
            guard let id = RecordPageToken.decode(token, collection: collection) else {
                throw Problem.invalidPageToken("The pageToken is not one this server wrote for collection '\(Problem.echo(collection))'.")
            }
            after = id
        }
        let records = try context.reading { () throws(StoreError) in
            try context.lists.store.records(in: collection, after: after, limit: size + 1)
        }
        // Once the read is known to succeed: only an answer that would be a 2xx is conditional.
        try EntityTag.checkUntagged(request)
        let next = records.count > size ? records.prefix(size).last.map { RecordPageToken.encode(after: $0.id, collection: collection) } : nil
        var response = jsonAnswer(capacity: 64 + records.reduce(0) { $0 + $1.json.count + 1 }) { w in
            w.beginObject()
            w.key("records")
            w.beginArray()
            for record in records.prefix(size) { w.rawValue(record.json) }
            w.endArray()
            if let next { w.key("nextPageToken"); w.string(next) }
            w.endObject()
        }
        if let next {
            // As list pages link theirs: the token is URL-safe base64, the name and size are checked.
            let pageSize = request.query("pageSize").map { "&pageSize=\($0)" } ?? ""
            response.headers.add("Link", "</v1/collections/\(collection)/records?pageToken=\(next)\(pageSize)>; rel=\"next\"")
        }
        return response
    }

    private func batch(_ request: Request) throws(HTTPError) -> Response {
        let collection = try request.name("c", kind: "collection")
        try EntityTag.checkUntagged(request)  // records in a batch are conditioned by expectedVersions
        guard let body = try request.jsonObjectBody() else { throw Problem.invalidJSON("The body must be a JSON object.") }
        for member in body where !["upsert", "patch", "delete", "expectedVersions"].contains(member.key) {
            throw Problem.invalidRequest("Unknown member '\(Problem.echo(member.key))'; a batch is {\"upsert\": [records], \"patch\": [merge patches with \"id\"], \"delete\": [ids], \"expectedVersions\": {id: version}}.")
        }
        let conditions = try Self.expectedVersions(body["expectedVersions"], collection: collection)
        let upserts = body["upsert"].map { $0.arrayValue } ?? []
        let patchValues = body["patch"].map { $0.arrayValue } ?? []
        let deletes = body["delete"].map { $0.arrayValue } ?? []
        guard let upserts, let patchValues, let deletes else {
            throw Problem.invalidRequest("'upsert', 'patch' and 'delete' must be arrays.")
        }
        let operations = upserts.count + patchValues.count + deletes.count
        guard operations <= ViewModelStore.maxBatchOperations else {
            throw Problem.invalidRequest("A batch holds at most \(ViewModelStore.maxBatchOperations) operations; this one has \(operations).")
        }
        let patches = try Self.patches(patchValues, collection: collection)
        var writes: [ViewModelStore.Write] = []
        writes.reserveCapacity(upserts.count + deletes.count)
        for (index, value) in upserts.enumerated() {
            guard let object = value.objectValue, let id = object["id"]?.stringValue else {
                throw Problem.invalidRequest("upsert[\(index)] must be a JSON object with a string \"id\".")
            }
            guard Names.isValid(id) else { throw Problem.invalidName("record", id) }
            writes.append(.upsert(collection: collection, record: IncomingRecord(id: id, object: object)))
        }
        for (index, value) in deletes.enumerated() {
            guard let id = value.stringValue else { throw Problem.invalidRequest("delete[\(index)] must be a record id (a string).") }
            guard Names.isValid(id) else { throw Problem.invalidName("record", id) }
            writes.append(.delete(collection: collection, id: id))
        }
        // Distinct ids: the same id twice in `upsert` is one record, written by the last of them.
        let upserted = Set(writes.compactMap { write -> String? in
            if case .upsert(_, let record) = write { return record.id }
            return nil
        }).count
        writes.insert(contentsOf: patches.map { .patch($0) }, at: writes.firstIndex { !$0.isUpsert } ?? writes.endIndex)
        let patched = Set(patches.map(\.id)).count
        let deleteCount = deletes.count
        return context.write(writes, conditions: conditions) { result throws(HTTPError) in
            try Self.refusal(result, patches: patches, collection: collection)
            // The deletes come last; the writes before them may be fewer than sent (patches of
            // one record are written once).
            let deleted = result.existed.suffix(deleteCount).filter { $0 }.count
            return jsonAnswer { w in
                w.beginObject()
                w.key("upserted"); w.int(upserted)
                w.key("patched"); w.int(patched)
                w.key("deleted"); w.int(deleted)
                w.key("version"); w.int64(result.sequence)
                w.endObject()
            }
        }
    }
}

extension RecordRoutes {
    /// A batch's `expectedVersions`: `{id: version}` where a version is a record's entity tag
    /// as a number (it must be at it), `"*"` (it must exist) or `0` (it must not exist).
    static func expectedVersions(_ value: JSONValue?, collection: String) throws(HTTPError) -> [WriteCondition] {
        guard let value else { return [] }
        guard case .object(let object) = value else {
            throw Problem.invalidRequest("'expectedVersions' must be an object of record id to version.")
        }
        // Each is looked up while no writer can commit: as many as a batch's operations.
        guard object.count <= ViewModelStore.maxBatchOperations else {
            throw Problem.invalidRequest("'expectedVersions' names at most \(ViewModelStore.maxBatchOperations) records; this one names \(object.count).")
        }
        var conditions: [WriteCondition] = []
        for member in object {
            guard Names.isValid(member.key) else { throw Problem.invalidName("record", member.key) }
            let expectation: WriteCondition.Expectation
            switch member.value {
            case .string("*"): expectation = .exists
            case .int(0): expectation = .absent
            case .int(let version) where version > 0: expectation = .version([version])
            default:
                throw Problem.invalidRequest("expectedVersions['\(Problem.echo(member.key))'] must be a version (a whole number from 1 to 9223372036854775807), 0 (must not exist) or \"*\" (must exist).")
            }
            conditions.append(WriteCondition(collection: collection, id: member.key, expectation: expectation))
        }
        return conditions
    }
}

/// Record-listing tokens: the last id delivered, bound to the collection, base64url.
enum RecordPageToken {
    static func encode(after id: String, collection: String) -> String {
        Base64URL.encode(Array("\(collection)\n\(id)".utf8))
    }

    /// The id a token names, nil for one not made by ``encode(after:collection:)`` for
    /// `collection` (its id is no record id: a NUL in it was `500` on PostgreSQL, `200` on SQLite).
    static func decode(_ token: String, collection: String) -> String? {
        guard let bytes = Base64URL.decode(token), let newline = bytes.firstIndex(of: 0x0A),
              bytes[..<newline].elementsEqual(collection.utf8) else { return nil }
        let id = String(decoding: bytes[(newline + 1)...], as: UTF8.self)
        return Names.isValid(id) ? id : nil
    }
}
