import Foundation
import TestSupport
import XCTest

/// A row's `image`, `accessory`, `enabled`, `value`, `actions` and `data` over HTTP: the shape
/// served (documented in the OpenAPI `Row` schema, never `null`), `changes` after a toggle, and
/// a bad accessory refused at `PUT …/definition`.
final class RowFieldsEndpointTests: XCTestCase {
    static let token = "row-fields-test-token"
    private var service: [(String, String)] { [("Authorization", "Bearer \(Self.token)")] }

    static let definition = """
    { "sections": [ { "source": "tasks", "key": "all", "sortBy": [ { "field": "n" } ],
        "row": { "title": "{name}", "image": "https://x.io/{id}.png", "accessory": "toggle", "value": "{done}",
                 "enabled": "{open}", "actions": [ { "id": "delete", "title": "Delete", "style": "destructive" } ],
                 "data": [ "n", "due", "tags" ] } } ] }
    """

    func testTheRowCarriesEveryFieldAndAToggleIsAnUpdate() throws {
        let app = try TestApp(token: Self.token)
        try app.request("PUT", "/v1/lists/tasks/definition", json: Self.definition, headers: service).expect(201)
        try app.request("POST", "/v1/collections/tasks/batch", json: """
            {"upsert":[{"id":"t1","n":1,"name":"Write","done":false,"open":true,"due":"2026-12-01","tags":["a"]},
                       {"id":"t2","n":2,"name":"Ship","open":false,"tags":null}]}
            """, headers: service).expect(200)
        let rows: [[String: Any]] = try app.get("/v1/lists/tasks/sections/0/rows").json.value("section", as: [String: Any].self).value("rows")
        XCTAssertEqual(rows.count, 2)
        let first = rows[0], second = rows[1]
        XCTAssertEqual(first["image"] as? String, "https://x.io/t1.png")
        XCTAssertEqual(first["accessory"] as? String, "toggle")
        XCTAssertEqual(first["value"] as? Bool, false)
        XCTAssertNil(first["enabled"], "enabled is written only when false")
        XCTAssertEqual((first["actions"] as? [[String: String]]) ?? [], [["id": "delete", "title": "Delete", "style": "destructive"]])
        let data = try XCTUnwrap(first["data"] as? [String: Any])
        XCTAssertEqual(data["n"] as? Int, 1, "typed: a number stays a number")
        XCTAssertEqual(data["due"] as? String, "2026-12-01")
        XCTAssertEqual(data["tags"] as? [String], ["a"])
        XCTAssertEqual(second["enabled"] as? Bool, false)
        XCTAssertNil(second["value"], "no done field: no value")
        XCTAssertEqual((second["data"] as? [String: Any]).map { Set($0.keys) }, ["n"], "null and missing fields are left out")

        // Every member is documented in the Row schema; none is null.
        let document = try app.get("/openapi.json").json
        let schemas: [String: Any] = try (document.value("components") as [String: Any]).value("schemas")
        let documented = Set(try (schemas.value("Row") as [String: Any]).value("properties", as: [String: Any].self).keys)
        for row in rows {
            XCTAssertTrue(Set(row.keys).isSubset(of: documented), "undocumented: \(Set(row.keys).subtracting(documented))")
            XCTAssertFalse(row.values.contains { $0 is NSNull }, "\(row)")
        }

        let before = try app.version(of: "tasks")
        try app.request("PATCH", "/v1/collections/tasks/records/t1", json: #"{"done":true}"#, headers: service).expect(200)
        let changes = try app.get("/v1/lists/tasks/changes?since=\(before)").json
        XCTAssertEqual(try changes.value("reload", as: Bool.self), false)
        let rowChanges: [String: Any] = try changes.value("rows")
        XCTAssertEqual((rowChanges["updated"] as? [[String: Int]]) ?? [], [["section": 0, "row": 0]], "\(changes)")
        XCTAssertEqual((rowChanges["inserted"] as? [Any])?.count, 0)
        XCTAssertEqual(try app.get("/v1/lists/tasks/rows/t1").json.value("row", as: [String: Any].self)["value"] as? Bool, true)
    }

    func testAnUnknownAccessoryOrStyleIsAnInvalidDefinition() throws {
        let app = try TestApp(token: Self.token)
        let bad = Self.definition.replacingOccurrences(of: #""toggle""#, with: #""switch""#)
            .replacingOccurrences(of: #""destructive""#, with: #""danger""#)
        let answer = try app.request("PUT", "/v1/lists/tasks/definition", json: bad, headers: service)
        XCTAssertEqual(answer.status, 400)
        XCTAssertEqual(answer.slug, "invalid-definition")
        let errors: [[String: Any]] = try answer.problem.value("errors")
        XCTAssertEqual(Set(try errors.map { try $0.value("path", as: String.self) }),
                       ["$.sections[0].row.accessory", "$.sections[0].row.actions[0].style"])
        XCTAssertEqual(try app.get("/v1/lists/tasks").slug, "list-not-found", "nothing was created")
    }
}
