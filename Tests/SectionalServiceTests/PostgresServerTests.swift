import Foundation
import TestSupport
import XCTest

/// The real server on PostgreSQL: writes and reads over HTTP, and a restart on the same database
/// answers exactly as before — same records, views, versions and ETags — and numbers on from there.
final class PostgresServerTests: PostgresDatabaseTestCase {
    func testWritesAndReadsOverHTTPSurviveARestartOnTheSameDatabase() throws {
        let url = try XCTUnwrap(database).url
        var version = 0
        var outline: [UInt8] = []
        var etag: String?
        var viewID = ""
        var recordTag = ""
        do {
            let app = try TestApp(postgres: url)
            try app.seed([("p1", "Ada", "Design"), ("p2", "Alan", "Engineering"), ("p3", "Grace", "Design")])
            recordTag = try XCTUnwrap(try app.put("people", "p4", #"{"id":"p4","name":"Edsger","team":"Engineering","email":"e@example.com"}"#)
                .expect(201).header("ETag"))
            XCTAssertEqual(try app.request("DELETE", "/v1/collections/people/records/p2").status, 204)
            viewID = try app.createView(#"{"hidden":["pinned"]}"#)
            let answer = try app.get("/v1/lists/people").expect(200)
            XCTAssertEqual(try answer.json.value("totalRowCount", as: Int.self), 4, "the pinned row and three people")
            version = try app.version()
            XCTAssertGreaterThan(version, 0)
            outline = answer.body
            etag = answer.header("ETag")
            app.server.stop()
        }
        let app = try TestApp(postgres: url)
        let answer = try app.get("/v1/lists/people").expect(200)
        XCTAssertEqual(try app.version(), version, "versions come back from the store")
        XCTAssertEqual(answer.body, outline, "the same outline, byte for byte")
        XCTAssertEqual(answer.header("ETag"), etag)
        let record = try app.get("/v1/collections/people/records/p4").expect(200)
        XCTAssertEqual(try record.json.value("name", as: String.self), "Edsger")
        XCTAssertEqual(record.header("ETag"), recordTag, "a record's version comes back from the store")
        try app.put("people", "p4", #"{"id":"p4","name":"E. W. Dijkstra","team":"Engineering"}"#, headers: [("If-Match", recordTag)]).expect(200)
        XCTAssertEqual(try app.put("people", "p4", #"{"id":"p4","name":"Late"}"#, headers: [("If-Match", recordTag)]).status, 412)
        XCTAssertEqual(try app.get("/v1/collections/people/records/p2").status, 404)
        XCTAssertEqual(try app.get("/v1/lists/people/views/\(viewID)").expect(200).json.value("hidden", as: [String].self), ["pinned"])
        try app.put("people", "p5", #"{"id":"p5","name":"Barbara","team":"Design","email":"b@example.com"}"#).expect(201)
        XCTAssertGreaterThan(try app.version(), version, "numbering goes on from the stored sequence")
    }

    /// A run-time definition is stored in the shared database: an instance started on it serves
    /// it (and its language maps), at the change's version.
    func testARunTimeDefinitionIsSharedThroughTheDatabase() throws {
        let url = try XCTUnwrap(database).url
        let first = try TestApp(postgres: url)
        try first.seed([("p1", "Ada", "Design")])
        let definition = """
            { "title": { "en": "Crew", "de": "Mannschaft" }, "languages": ["en", "de"],
              "sections": [ { "key": "all", "source": "people", "title": "All", "row": { "title": "{name}" } } ] }
            """
        let put = try first.request("PUT", "/v1/lists/people/definition", json: definition).expect(200)
        let version = try XCTUnwrap(put.header("Sectional-Version").flatMap(Int.init))
        let second = try TestApp(postgres: url)
        let read = try second.get("/v1/lists/people/definition").json
        XCTAssertEqual(try read.value("source", as: String.self), "runtime")
        XCTAssertEqual(try read.value("revision", as: Int.self), 1)
        XCTAssertEqual(try second.version(), version)
        let german = try second.request("GET", "/v1/lists/people", headers: [("Accept-Language", "de")]).json
        XCTAssertEqual(try german.value("title", as: String.self), "Mannschaft")
        XCTAssertEqual(try second.rowTitles(), ["Ada"])
    }
}
