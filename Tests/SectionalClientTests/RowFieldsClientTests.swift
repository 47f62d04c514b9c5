import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SectionalClient
import XCTest

/// SectionalClient's `ListRow` reads a row's `image`, `accessory`, `enabled`, `value`, `actions`
/// and typed `data` from a live server, and writes them back without `null`s.
final class RowFieldsClientTests: XCTestCase {
    func testTheRowFieldsDecodeTyped() async throws {
        let server = try LiveServer()
        var put = URLRequest(url: server.url.appendingPathComponent("v1/lists/tasks/definition"))
        put.httpMethod = "PUT"
        put.setValue("application/json", forHTTPHeaderField: "Content-Type")
        put.httpBody = Data("""
            { "sections": [ { "source": "tasks", "key": "all", "sortBy": [ { "field": "n" } ],
                "row": { "title": "{name}", "image": "https://x.io/{id}.png", "accessory": "checkmark", "value": "{done}",
                         "enabled": "{open}", "actions": [ { "id": "flag", "title": "Flag" } ], "data": [ "n", "tags" ] } } ] }
            """.utf8)
        let (_, response) = try await URLSession.shared.data(for: put)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 201)
        let client = SectionalClient(baseURL: server.url)
        try await client.collection("tasks").batch(upsert: [
            ["id": "t1", "n": 1, "name": "Write", "done": true, "open": false, "tags": ["a", "b"]],
            ["id": "t2", "n": 2, "name": "Plain"],
        ])
        var rows: [ListRow] = []
        for try await page in client.list("tasks").pages(size: 10) { rows += page.sections.flatMap(\.rows) }
        XCTAssertEqual(rows.count, 2)
        let first = try XCTUnwrap(rows.first)
        XCTAssertEqual(first.image, "https://x.io/t1.png")
        XCTAssertEqual(first.accessory, "checkmark")
        XCTAssertEqual(first.value, true)
        XCTAssertFalse(first.isEnabled)
        XCTAssertEqual(first.actions?.map(\.id), ["flag"])
        XCTAssertEqual(first.actions?.first?.style, "default")
        XCTAssertEqual(first.data, ["n": 1, "tags": ["a", "b"]])
        let plain = rows[1]
        XCTAssertTrue(plain.isEnabled)
        XCTAssertNil(plain.value)
        XCTAssertEqual(plain.data, ["n": 2])

        let encoded = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        XCTAssertFalse(encoded.contains("null"), encoded)
        XCTAssertEqual(try JSONDecoder().decode(ListRow.self, from: Data(encoded.utf8)), plain)
    }
}
