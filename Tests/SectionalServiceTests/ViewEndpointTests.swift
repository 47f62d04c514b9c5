import Foundation
import TestSupport
import XCTest

final class ViewEndpointTests: XCTestCase {
    func testCreateReadHideToggleDelete() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design"), ("p2", "Alan", "Engineering")])
        let created = try app.request("POST", "/v1/lists/people/views")
        XCTAssertEqual(created.status, 201)
        let id = try XCTUnwrap(try created.json["view"] as? String)
        XCTAssertGreaterThanOrEqual(id.count, 21, "at least 122 random bits in base64url")
        XCTAssertEqual(created.header("Location"), "/v1/lists/people/views/\(id)")
        XCTAssertEqual(try created.json["hidden"] as? [String], ["Archived"], "a new view starts from the default")

        let hide = try app.request("PUT", "/v1/lists/people/views/\(id)/sections/1", json: #"{"hidden":true}"#)
        XCTAssertEqual(hide.status, 200, hide.text)
        let section = try hide.json["section"] as? [String: Any]
        XCTAssertEqual(section?["key"] as? String, "Design")
        XCTAssertEqual(section?["hidden"] as? Bool, true)
        XCTAssertEqual(section?["rowCount"] as? Int, 0)
        XCTAssertEqual(section?["totalRowCount"] as? Int, 1)

        let outline = try app.get("/v1/lists/people?view=\(id)").json
        XCTAssertEqual(outline["rowCount"] as? Int, 2, "pinned + Engineering")
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").json["hidden"] as? [String], ["Archived", "Design"])

        let toggled = try app.request("POST", "/v1/lists/people/views/\(id)/sections/1/toggle")
        XCTAssertEqual(try (toggled.json["section"] as? [String: Any])?["hidden"] as? Bool, false)
        XCTAssertEqual(try app.get("/v1/lists/people?view=\(id)").json["rowCount"] as? Int, 3)

        XCTAssertEqual(try app.request("DELETE", "/v1/lists/people/views/\(id)").status, 204)
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(id)").slug, "view-not-found")
        XCTAssertEqual(try app.request("DELETE", "/v1/lists/people/views/\(id)").slug, "view-not-found")
    }

    func testViewErrors() throws {
        let app = try TestApp()
        let id = try app.createView(#"{"hidden":["pinned"]}"#)
        XCTAssertEqual(try app.request("PUT", "/v1/lists/people/views/\(id)/sections/0", json: #"{"hidden":"yes"}"#).slug, "invalid-request")
        XCTAssertEqual(try app.request("PUT", "/v1/lists/people/views/\(id)/sections/0", json: #"{"hidden":true,"x":1}"#).slug, "invalid-request")
        XCTAssertEqual(try app.request("PUT", "/v1/lists/people/views/\(id)/sections/0", json: "true").slug, "invalid-json")
        XCTAssertEqual(try app.request("PUT", "/v1/lists/people/views/\(id)/sections/0").slug, "unsupported-media-type")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views/\(id)/sections/7/toggle").slug, "section-not-found")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views/\(id)/sections/one/toggle").slug, "invalid-request")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views/nope/sections/0/toggle").slug, "view-not-found")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views", json: #"{"hidden":[1]}"#).slug, "invalid-request")
        XCTAssertEqual(try app.request("POST", "/v1/lists/people/views", json: #"{"shown":[]}"#).slug, "invalid-request")
        XCTAssertEqual(try app.request("POST", "/v1/lists/nothing/views").slug, "list-not-found")
    }

    func testViewsSurviveARestart() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var id = ""
        do {
            let app = try TestApp(folder: folder, sqlite: true)
            try app.seed([("p1", "Old Timer", "Archived")])
            id = try app.createView(#"{"hidden":["pinned"]}"#)
            try app.request("POST", "/v1/lists/people/views/\(id)/sections/1/toggle").expect(200)
            app.server.stop()
        }
        let app = try TestApp(folder: folder, sqlite: true)
        let view = try app.get("/v1/lists/people/views/\(id)")
        XCTAssertEqual(view.status, 200)
        XCTAssertEqual(Set(try view.json.value("hidden", as: [String].self)), ["pinned", "Archived"], "Archived (section 1) was toggled to hidden")
    }
}
