import Foundation
import TestSupport
import XCTest

final class OperationsTests: XCTestCase {
    func testCrossOriginPreflightAndExposedHeaders() throws {
        let app = try TestApp()
        let preflight = try app.request("OPTIONS", "/v1/collections/people/records/p1",
                                        headers: [("Origin", "https://app.example"), ("Access-Control-Request-Method", "PUT")])
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.header("Access-Control-Allow-Origin"), "*")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Methods"), "DELETE, GET, HEAD, PUT, OPTIONS")
        XCTAssertTrue(preflight.header("Access-Control-Allow-Headers")?.contains("If-None-Match") == true)
        let read = try app.request("GET", "/v1/lists/people", headers: [("Origin", "https://app.example")])
        XCTAssertEqual(read.header("Access-Control-Allow-Origin"), "*")
        XCTAssertEqual(read.header("Access-Control-Expose-Headers"), "ETag, Link, Location")
        XCTAssertEqual(try app.request("OPTIONS", "/v1/nothing").status, 404)
    }

    func testGzipWhenAcceptedAndLarge() throws {
        let app = try TestApp()
        try app.seed((1...40).map { ("p\($0)", "Person \($0)", "Team") })
        let plain = try app.get("/v1/lists/people/rows")
        XCTAssertNil(plain.header("Content-Encoding"))
        let zipped = try app.request("GET", "/v1/lists/people/rows", headers: [("Accept-Encoding", "br, gzip")])
        XCTAssertEqual(zipped.header("Content-Encoding"), "gzip")
        XCTAssertEqual(zipped.header("Vary"), "Accept-Encoding")
        XCTAssertLessThan(zipped.body.count, plain.body.count)
        XCTAssertEqual(zipped.body.prefix(2), [0x1F, 0x8B], "a gzip member")
        XCTAssertEqual(zipped.header("ETag"), String(plain.header("ETag")!.dropLast()) + "-gzip\"")
        let revalidated = try app.request("GET", "/v1/lists/people/rows",
                                          headers: [("Accept-Encoding", "gzip"), ("If-None-Match", zipped.header("ETag")!)])
        XCTAssertEqual(revalidated.status, 304)
        XCTAssertNil(try app.request("GET", "/healthz", headers: [("Accept-Encoding", "gzip")]).header("Content-Encoding"),
                     "small bodies stay plain")
        XCTAssertNil(try app.request("GET", "/v1/lists/people/rows", headers: [("Accept-Encoding", "gzip;q=0")]).header("Content-Encoding"))
    }

    func testMetricsCountRequestsByRouteTemplate() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        _ = try app.get("/v1/lists/people/rows/p1")
        _ = try app.get("/v1/lists/people/rows/nobody")
        XCTAssertTrue(eventually { (try? app.get("/metrics").text.contains("route=\"/v1/lists/{list}/rows/{rowId}\",method=\"GET\",status=\"404\"} 1")) == true })
        let metrics = try app.get("/metrics")
        XCTAssertEqual(metrics.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8")
        let text = metrics.text
        XCTAssertTrue(text.contains("sectional_http_requests_total{route=\"/v1/lists/{list}/rows/{rowId}\",method=\"GET\",status=\"200\"} 1"), text)
        XCTAssertTrue(text.contains("sectional_list_rows{list=\"people\"} 2"))
        XCTAssertTrue(text.contains("sectional_http_request_duration_seconds_bucket{route=\"/v1/lists/{list}/rows/{rowId}\",le=\"+Inf\"}"))
        XCTAssertTrue(text.contains("sectional_store_write_seconds_count 1"))
        XCTAssertTrue(text.contains("sectional_duplicate_rows_total{list=\"people\"} 0"))
        XCTAssertTrue(text.contains("sectional_event_streams 0"))
    }

    func testMetricsCountMadeUpMethodsAsOther() throws {
        let app = try TestApp()
        for method in ["FOO", "BAR", "BAZ", "GET"] { _ = try app.request(method, "/healthz") }
        let counted = ["route=\"/healthz\",method=\"other\",status=\"405\"} 3", "route=\"/healthz\",method=\"GET\",status=\"200\"} 1"]
        XCTAssertTrue(eventually { counted.allSatisfy { (try? app.get("/metrics").text.contains($0)) == true } },
                      (try? app.get("/metrics").text) ?? "")
        XCTAssertFalse(try app.get("/metrics").text.contains("method=\"FOO\""))
    }

    func testTheAPIDocumentIsServed() throws {
        let app = try TestApp()
        let document = try app.get("/openapi.json")
        XCTAssertEqual(document.status, 200)
        XCTAssertEqual(try document.json["openapi"] as? String, "3.1.0")
        XCTAssertNotNil(try (document.json["paths"] as? [String: Any])?["/v1/lists/{list}/rows"])
    }
}
