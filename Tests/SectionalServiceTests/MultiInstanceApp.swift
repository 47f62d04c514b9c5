import Foundation
import TestSupport
import XCTest

/// Instances of the real server on one PostgreSQL database, with a list that is the same for
/// everyone (`people`), a per-user list (`orders`, split by `owner`) and a service token that
/// writes and reads as any user (`?user=`).
enum MultiInstance {
    static let token = "service-token-for-tests"
    static let config = """
    {
      "lists": {
        "people": {
          "sections": [
            { "key": "pinned", "type": "pinned", "title": "Pinned", "rows": [ { "id": "me", "type": "profile", "title": "Me", "tagLength": 3 } ] },
            { "source": "people", "groupBy": "team", "type": "team", "title": "{$key} ({$count})", "hiddenByDefault": ["Archived"],
              "sortBy": [ { "field": "name" } ], "row": { "type": "person", "title": "{name}", "tagLength": 2 } }
          ]
        },
        "orders": {
          "scope": { "field": "owner", "claim": "sub" },
          "sections": [
            { "source": "orders", "groupBy": "status", "type": "status", "title": "{$key} ({$count})",
              "sortBy": [ { "field": "title" } ], "row": { "type": "order", "title": "{title}", "tagLength": 2 } }
          ]
        }
      }
    }
    """
    static var headers: [(String, String)] { [("Authorization", "Bearer \(token)")] }

    /// One request with the service token; JSON bodies as `application/json`.
    static func request(_ port: Int, _ method: String, _ target: String, json: String? = nil,
                        headers extra: [(String, String)] = []) throws -> HTTPTestClient.Answer {
        var all = headers + extra
        if json != nil { all.append(("Content-Type", "application/json")) }
        return try HTTPTestClient(port: port).request(method, target, headers: all, body: json.map { Array($0.utf8) })
    }

    /// Waits (up to `seconds`) until the instance has applied `version` (a read with `minVersion`).
    static func catchUp(_ port: Int, to version: Int, within seconds: Double = 20) -> Bool {
        eventually(within: seconds) { (try? request(port, "GET", "/v1/lists/people?minVersion=\(version)").status) == 200 }
    }

    /// The version a write's answer names (`Sectional-Version`), 0 when none.
    static func version(of answer: HTTPTestClient.Answer) -> Int { answer.header("Sectional-Version").flatMap { Int($0) } ?? 0 }

    /// A random record write: people (upsert, now and then a delete) or orders (an owner among
    /// u1…u4, or none, so records move between partitions). Returns the answer.
    static func randomWrite(_ port: Int, using generator: inout SplitMix64) throws -> HTTPTestClient.Answer {
        let teams = ["Design", "Sales", "Archived", "Support"]
        let statuses = ["open", "paid", "sent"]
        let n = Int.random(in: 0..<20, using: &generator)
        switch Int.random(in: 0..<10, using: &generator) {
        case 0:
            return try request(port, "DELETE", "/v1/collections/people/records/p\(n)")
        case 1:
            return try request(port, "DELETE", "/v1/collections/orders/records/o\(n)")
        case 2...5:
            let team = teams[Int.random(in: 0..<teams.count, using: &generator)]
            return try request(port, "PUT", "/v1/collections/people/records/p\(n)",
                               json: "{\"name\":\"N\(Int.random(in: 0..<30, using: &generator))\",\"team\":\"\(team)\"}")
        case 6:
            let a = Int.random(in: 0..<20, using: &generator), b = Int.random(in: 0..<20, using: &generator)
            return try request(port, "POST", "/v1/collections/people/batch",
                               json: "{\"upsert\":[{\"id\":\"p\(a)\",\"name\":\"B\(b)\",\"team\":\"Sales\"}],\"delete\":[\"p\(b)\"]}")
        default:
            let owner = Int.random(in: 0..<5, using: &generator)
            let ownerMember = owner == 0 ? "" : ",\"owner\":\"u\(owner)\""
            let status = statuses[Int.random(in: 0..<statuses.count, using: &generator)]
            return try request(port, "PUT", "/v1/collections/orders/records/o\(n)",
                               json: "{\"title\":\"T\(Int.random(in: 0..<30, using: &generator))\",\"status\":\"\(status)\"\(ownerMember)}")
        }
    }

    /// The outline of `people` through `view`: section keys and visible row ids, walked page by page.
    static func outline(_ port: Int, view: String) throws -> (version: Int, sections: [ChangesApplier.Section]) {
        try walkPages { token in
            try request(port, "GET", "/v1/lists/people/rows?pageSize=4&view=\(view)" + (token.map { "&pageToken=\($0)" } ?? "")).expect(200).json
        }
    }

    /// Every read worth comparing, as one instance answers it: the targets (pages followed by
    /// the tokens `port` wrote), each with its status, ETag and body.
    static func answers(_ port: Int, views: [String], users: [String], sinces: [Int]) throws -> [String: String] {
        var targets = ["/v1/lists", "/v1/lists/people", "/v1/lists/people/sections/1/rows?pageSize=3"]
        for view in views {
            targets += ["/v1/lists/people?view=\(view)", "/v1/lists/people/views/\(view)"]
            targets += sinces.map { "/v1/lists/people/changes?since=\($0)&view=\(view)" }
        }
        targets += sinces.map { "/v1/lists/people/changes?since=\($0)" }
        for user in users {
            targets += ["/v1/lists/orders?user=\(user)", "/v1/lists/orders/rows?pageSize=500&user=\(user)"]
            targets += sinces.map { "/v1/lists/orders/changes?since=\($0)&user=\(user)" }
        }
        var answers: [String: String] = [:]
        for target in targets { answers[target] = try describe(request(port, "GET", target)) }
        // Pages, following this instance's tokens.
        for view in [nil] + views.map(Optional.some) {
            var target: String? = "/v1/lists/people/rows?pageSize=3" + (view.map { "&view=\($0)" } ?? "")
            while let next = target {
                let answer = try request(port, "GET", next)
                answers[next] = describe(answer)
                target = (try? answer.json["nextPageToken"] as? String).flatMap { $0 }.map { token in
                    "/v1/lists/people/rows?pageSize=3" + (view.map { "&view=\($0)" } ?? "") + "&pageToken=\(token)"
                }
            }
        }
        return answers
    }

    static func describe(_ answer: HTTPTestClient.Answer) -> String {
        "\(answer.status) \(answer.header("ETag") ?? "-") \(answer.text)"
    }
}
