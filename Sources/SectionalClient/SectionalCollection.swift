import Foundation

/// One record collection's API (writes need the service token when the server has one).
public struct SectionalCollection: Sendable {
    /// The client it uses.
    public let client: SectionalClient
    /// The collection's name.
    public let name: String

    private var base: [String] { ["v1", "collections", name] }

    /// What a record write answers.
    public struct Written: Decodable, Sendable {
        /// The collection, the id and the record as stored.
        public var collection: String, id: String, record: JSON
        /// The version holding the write: a read with `minVersion` at it sees the write.
        public var version: Int
    }

    /// A page of records, by id.
    public struct RecordPage: Decodable, Sendable {
        /// The records.
        public var records: [JSON]
        /// The next page's token; `nil` on the last page.
        public var nextPageToken: String?
    }

    /// What a batch answers.
    public struct BatchResult: Decodable, Sendable {
        /// How many records were upserted, patched and deleted.
        public var upserted: Int, patched: Int, deleted: Int
        /// The version holding the batch.
        public var version: Int
    }

    /// Stores `record` (a JSON object) under `id`; `created` tells a new record from a replaced one.
    @discardableResult
    public func put(_ id: String, _ record: JSON) async throws -> (written: Written, created: Bool) {
        let (data, status, _) = try await client.send("PUT", base + ["records", id], body: try SectionalClient.json(record))
        do {
            return (try JSONDecoder().decode(Written.self, from: data), status == 201)
        } catch {
            throw SectionalError.unreadable("record write: \(error)", status: status)
        }
    }

    /// Merges `changes` into the record stored under `id` (JSON Merge Patch, RFC 7396: a member
    /// set to `null` is removed, objects merge member by member) and answers the merged record.
    /// Throws ``SectionalError`` `record-not-found` when there is no such record.
    @discardableResult
    public func patch(_ id: String, _ changes: JSON) async throws -> Written {
        try await client.send("PATCH", base + ["records", id], body: try SectionalClient.json(changes))
    }

    /// The record stored under `id`.
    public func get(_ id: String) async throws -> JSON {
        try await client.get(base + ["records", id])
    }

    /// Deletes the record stored under `id`; returns the version holding the delete (its
    /// `Sectional-Version`), for ``SectionalClient/reading(atLeast:)``.
    @discardableResult
    public func delete(_ id: String) async throws -> Int {
        try await client.send("DELETE", base + ["records", id]).version
    }

    /// One page of records, by id.
    public func records(pageSize: Int = 0, token: String? = nil) async throws -> RecordPage {
        var query: [(String, String)] = []
        if pageSize != 0 { query.append(("pageSize", String(pageSize))) }
        if let token { query.append(("pageToken", token)) }
        return try await client.get(base + ["records"], query: query)
    }

    /// Upserts, patches (objects with an `id`, merged as ``patch(_:_:)`` merges) and deletes
    /// atomically; with `expectedVersions` (`["p1": 17, "p2": 0, "p3": "*"]`: at that version,
    /// absent, present) only while every one holds, else a `precondition-failed`
    /// ``SectionalError`` (412) and nothing written.
    @discardableResult
    public func batch(upsert: [JSON] = [], patch: [JSON] = [], delete: [String] = [],
                      expectedVersions: [String: JSON] = [:]) async throws -> BatchResult {
        struct Body: Encodable {
            let upsert: [JSON], patch: [JSON], delete: [String]
            let expectedVersions: [String: JSON]?
        }
        let body = Body(upsert: upsert, patch: patch, delete: delete, expectedVersions: expectedVersions.isEmpty ? nil : expectedVersions)
        return try await client.send("POST", base + ["batch"], body: try SectionalClient.json(body))
    }
}
