import Foundation
import TestSupport
import XCTest

/// A server with a per-user list `orders` (split by each order's `owner`), a list `all` over
/// the same records that is the same for everyone, and a service token; reads name the user
/// with the service token's `?user=`.
final class PartitionApp {
    static let serviceToken = "service-token-for-tests"
    static let config = """
    {
      "lists": {
        "orders": {
          "title": "Orders",
          "scope": { "field": "owner", "claim": "sub" },
          "search": { "fields": ["title"] },
          "sections": [
            { "key": "help", "type": "help", "title": "Help",
              "rows": [ { "id": "contact", "type": "link", "title": "Contact us", "tagLength": 1 } ] },
            { "source": "orders", "groupBy": "status", "type": "status", "title": "{$key} ({$count})",
              "sortBy": [ { "field": "title" } ],
              "row": { "type": "order", "title": "{title}", "subtitle": "{status}", "tagLength": 2 } }
          ]
        },
        "all": {
          "filters": ["status"],
          "sections": [ { "key": "all", "source": "orders", "type": "all", "title": "All", "row": { "type": "order", "title": "{title}" } } ]
        }
      }
    }
    """

    let app: TestApp

    init(sqlite: Bool = false, folder: URL? = nil, maxResidentRows: Int? = nil) throws {
        app = try TestApp(config: Self.config, folder: folder, sqlite: sqlite, token: Self.serviceToken, maxResidentRows: maxResidentRows)
    }

    var service: [(String, String)] { [("Authorization", "Bearer \(Self.serviceToken)")] }

    /// A read of `target` as `user` (the service token with `?user=`).
    func get(_ target: String, as user: String, headers: [(String, String)] = []) throws -> HTTPTestClient.Answer {
        let separator = target.contains("?") ? "&" : "?"
        return try app.request("GET", "\(target)\(separator)user=\(user)", headers: service + headers)
    }

    /// Writes an order; returns the commit's number (the record's version).
    @discardableResult
    func order(_ id: String, owner: String?, status: String = "open", title: String? = nil) throws -> Int64 {
        let ownerMember = owner.map { ",\"owner\":\"\($0)\"" } ?? ""
        let answer = try app.request("PUT", "/v1/collections/orders/records/\(id)",
                                     json: "{\"title\":\"\(title ?? id)\",\"status\":\"\(status)\"\(ownerMember)}", headers: service)
        let tag = try answer.expect(200...201).header("ETag") ?? ""
        return Int64(tag.dropFirst().dropLast()) ?? -1
    }

    func delete(_ id: String) throws {
        try app.request("DELETE", "/v1/collections/orders/records/\(id)", headers: service).expect(204)
    }

    /// The row ids of `user`'s first page (up to 500 rows), in order.
    func rowIDs(of user: String) throws -> [String] {
        let page = try get("/v1/lists/orders/rows?pageSize=500", as: user).json
        let sections: [[String: Any]] = try page.value("sections")
        return try sections.flatMap { section -> [String] in
            let rows: [[String: Any]] = try section.value("rows")
            return try rows.map { try $0.value("id") }
        }
    }

    func version(of user: String) throws -> Int { try get("/v1/lists/orders", as: user).json.value("version") }
}

extension HTTPTestClient.Answer {
    /// Throws unless the status is in `statuses`.
    @discardableResult
    func expect(_ statuses: ClosedRange<Int>) throws -> Self {
        guard statuses.contains(status) else { throw UnexpectedAnswer(description: "expected a status in \(statuses), got \(status) \(text.prefix(300))") }
        return self
    }
}
