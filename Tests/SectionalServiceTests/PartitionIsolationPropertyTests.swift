import Foundation
import ListModel
import TestSupport
import XCTest

/// Random records over several users and random writes (records created, edited, deleted and
/// moved between users): after every round, for every user, the outline, every page, every
/// row look-up and the `changes` since the user's last round are byte for byte what a list
/// built from that user's records alone gives, and nothing served to a user names another
/// user's record.
final class PartitionIsolationPropertyTests: XCTestCase {
    private struct Order {
        var owner: String?
        var status: String
        var title: String
    }

    private let users = ["ann", "ben", "cy", "dee"]
    private let statuses = ["open", "shipped", "returned"]
    private let words = ["kettle", "lamp", "chair", "mug", "desk", "sofa", "rug", "vase"]

    func testEveryUserSeesExactlyAListOfTheirOwnRecords() throws {
        var random = SplitMix64.replayable("PartitionIsolationPropertyTests")
        for sqlite in [false, true] {
            let p = try PartitionApp(sqlite: sqlite, maxResidentRows: sqlite ? 12 : nil)
            guard case .object(let config) = try JSONParser.parse(PartitionApp.config), let lists = config["lists"] else {
                return XCTFail("the test config has no lists")
            }
            let definition = try ListDefinitions.decode(lists)[0]
            var orders: [String: Order] = [:]
            var seen: [String: (version: Int64, snapshot: ListSnapshot)] = [:]
            /// Ids written into or out of each user's partition since the user was last checked
            /// (what the server passes its diff as changed).
            var touched: [String: Set<String>] = [:]
            for round in 0..<12 {
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    let id = "order\(Int.random(in: 10...40, using: &random))x"
                    if let previous = orders[id]?.owner { touched[previous, default: []].insert(id) }
                    if orders[id] != nil && Int.random(in: 0..<5, using: &random) == 0 {
                        try p.delete(id)
                        orders[id] = nil
                        continue
                    }
                    let owner = Int.random(in: 0..<8, using: &random) == 0 ? nil : users.randomElement(using: &random)
                    let order = Order(owner: owner, status: statuses.randomElement(using: &random)!,
                                      title: "\(words.randomElement(using: &random)!) \(Int.random(in: 0..<4, using: &random))")
                    try p.order(id, owner: owner, status: order.status, title: order.title)
                    orders[id] = order
                    if let owner { touched[owner, default: []].insert(id) }
                }
                for user in users {
                    let mine = orders.filter { $0.value.owner == user }
                    let records: [JSONValue] = mine.map { id, order in
                        .object(JSONObject([("id", .string(id)), ("title", .string(order.title)), ("status", .string(order.status)),
                                           ("owner", .string(user))]))
                    }
                    let reference = ListSnapshot.build(definition: definition, records: ["orders": records])
                    let others = orders.filter { $0.value.owner != user }.map(\.key)
                    try check(p, user: user, reference: reference, previous: seen[user], changed: touched[user] ?? [], foreignIDs: others,
                              context: "round \(round), sqlite \(sqlite), user \(user)")
                    seen[user] = (try Int64(p.version(of: user)), reference)
                    touched[user] = []
                }
            }
        }
    }

    private func check(_ p: PartitionApp, user: String, reference: ListSnapshot, previous: (version: Int64, snapshot: ListSnapshot)?,
                       changed: Set<String>, foreignIDs: [String], context: String) throws {
        var served: [String] = []
        func serve(_ target: String) throws -> String {
            let answer = try p.get(target, as: user)
            served.append(answer.text)
            if let tag = answer.header("ETag") { served.append(tag) }
            return answer.text
        }
        let outline = try serve("/v1/lists/orders")
        let version: Int64 = try p.get("/v1/lists/orders", as: user).json.value("version")
        let view = reference.definition.defaultView
        var w = JSONWriter(capacity: 1024)
        reference.writeOutlineAnswer(list: "orders", version: version, view: view, into: &w)
        XCTAssertEqual(outline, String(decoding: w.bytes, as: UTF8.self), "outline, \(context)")

        // What the server binds tokens to: the list, its definition, the user.
        let binding = PageBinding(list: "orders\u{1F}\(String(reference.definition.fingerprint, radix: 16))\u{1F}s:\(user)", view: nil)
        var token: String?
        repeat {
            let page = try reference.page(size: 3, token: token, view: view, binding: binding)
            var w = JSONWriter(capacity: 2048)
            reference.writePageAnswer(page, list: "orders", version: version, into: &w)
            let query = token.map { "&pageToken=\($0)" } ?? ""
            XCTAssertEqual(try serve("/v1/lists/orders/rows?pageSize=3\(query)"), String(decoding: w.bytes, as: UTF8.self),
                           "page after \(token ?? "start"), \(context)")
            token = page.nextPageToken
        } while token != nil

        for id in foreignIDs {
            let answer = try p.get("/v1/lists/orders/rows/\(id)", as: user)
            XCTAssertEqual(answer.slug, "row-not-found", "\(id) of another user, \(context)")
        }
        if let previous, previous.version < version {
            let update = reference.changes(from: previous.snapshot, changedRowIDs: changed, view: view, maxChanges: 1_000)
            var w = JSONWriter(capacity: 1024)
            ListSnapshot.writeChangesAnswer(update, list: "orders", from: previous.version, to: version, into: &w)
            let changes = try serve("/v1/lists/orders/changes?since=\(previous.version)")
            if !changes.contains("\"reload\":true") {
                XCTAssertEqual(changes, String(decoding: w.bytes, as: UTF8.self), "changes since \(previous.version), \(context)")
            }
        }
        for text in served {
            for id in foreignIDs where text.contains("\"\(id)\"") {
                XCTFail("\(user) was served another user's record \(id), \(context): \(text.prefix(300))")
            }
        }
    }
}
