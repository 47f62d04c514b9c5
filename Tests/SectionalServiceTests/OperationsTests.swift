import Foundation
import Locking
import TestSupport
import XCTest

final class OperationsTests: XCTestCase {
    func testCrossOriginPreflightAndExposedHeaders() throws {
        let app = try TestApp()
        let preflight = try app.request("OPTIONS", "/v1/collections/people/records/p1",
                                        headers: [("Origin", "https://app.example"), ("Access-Control-Request-Method", "PUT")])
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.header("Access-Control-Allow-Origin"), "*")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Methods"), "DELETE, GET, HEAD, PATCH, PUT, OPTIONS")
        // Every request header the API reads that a browser asks about first, and every answer
        // header it sets that a script could not read otherwise.
        let allowed = Set((preflight.header("Access-Control-Allow-Headers") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        XCTAssertTrue(allowed.isSuperset(of: ["Authorization", "Content-Type", "If-Match", "If-None-Match", "Last-Event-ID",
                                              "Accept-Language", "Sectional-Min-Version"]), "\(allowed)")
        let read = try app.request("GET", "/v1/lists/people", headers: [("Origin", "https://app.example")])
        XCTAssertEqual(read.header("Access-Control-Allow-Origin"), "*")
        let exposed = Set((read.header("Access-Control-Expose-Headers") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        XCTAssertTrue(exposed.isSuperset(of: ["ETag", "Link", "Location", "Retry-After", "WWW-Authenticate", "Sectional-Version"]), "\(exposed)")
        XCTAssertEqual(try app.request("OPTIONS", "/v1/nothing").status, 404)
    }

    func testGzipWhenAcceptedAndLarge() throws {
        let app = try TestApp()
        try app.seed((1...40).map { ("p\($0)", "Person \($0)", "Team") })
        let plain = try app.get("/v1/lists/people/rows").expect(200)
        XCTAssertNil(plain.header("Content-Encoding"))
        let plainTag = try XCTUnwrap(plain.header("ETag"))
        let zipped = try app.request("GET", "/v1/lists/people/rows", headers: [("Accept-Encoding", "br, gzip")]).expect(200)
        XCTAssertEqual(zipped.header("Content-Encoding"), "gzip")
        XCTAssertTrue(varies(zipped), "\(zipped.headers)")
        XCTAssertLessThan(zipped.body.count, plain.body.count)
        XCTAssertEqual(try gunzip(zipped.body), plain.body, "the gzip body inflates to the plain body")
        let zippedTag = try XCTUnwrap(zipped.header("ETag"))
        XCTAssertEqual(zippedTag, String(plainTag.dropLast()) + "-gzip\"")

        // Revalidation under gzip, with the gzip tag and with the plain one: 304, tagged and varied.
        for tag in [zippedTag, plainTag] {
            let revalidated = try app.request("GET", "/v1/lists/people/rows", headers: [("Accept-Encoding", "gzip"), ("If-None-Match", tag)])
            XCTAssertEqual(revalidated.status, 304, "If-None-Match: \(tag)")
            XCTAssertEqual(revalidated.header("ETag"), zippedTag, "If-None-Match: \(tag)")
            XCTAssertTrue(varies(revalidated), "If-None-Match: \(tag): \(revalidated.headers)")
            XCTAssertTrue(revalidated.body.isEmpty)
        }
        XCTAssertNil(try app.request("GET", "/healthz", headers: [("Accept-Encoding", "gzip")]).expect(200).header("Content-Encoding"),
                     "small bodies stay plain")
        let refused = try app.request("GET", "/v1/lists/people/rows", headers: [("Accept-Encoding", "gzip;q=0")]).expect(200)
        XCTAssertNil(refused.header("Content-Encoding"))
        XCTAssertEqual(refused.body, plain.body)
    }

    /// Whether a `Vary` field of `answer` names `Accept-Encoding`.
    private func varies(_ answer: HTTPTestClient.Answer) -> Bool {
        answer.headers.contains { $0.0.lowercased() == "vary" && $0.1.contains("Accept-Encoding") }
    }

    func testMetricsCountRequestsByRouteTemplate() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        try app.get("/v1/lists/people/rows/p1").expect(200)
        try app.get("/v1/lists/people/rows/nobody").expect(404)
        XCTAssertTrue(eventually { (try? app.get("/metrics").text.contains("route=\"/v1/lists/{list}/rows/{rowId}\",method=\"GET\",status=\"404\"} 1")) == true })
        let metrics = try app.get("/metrics").expect(200)
        XCTAssertEqual(metrics.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8")
        let text = metrics.text
        XCTAssertTrue(text.contains("sectional_http_requests_total{route=\"/v1/lists/{list}/rows/{rowId}\",method=\"GET\",status=\"200\"} 1"), text)
        XCTAssertTrue(text.contains("sectional_list_rows{list=\"people\"} 2"))
        XCTAssertTrue(text.contains("sectional_http_request_duration_seconds_bucket{route=\"/v1/lists/{list}/rows/{rowId}\",le=\"+Inf\"}"))
        XCTAssertTrue(text.contains("sectional_store_write_seconds_count 1"))
        XCTAssertTrue(text.contains("sectional_duplicate_rows_total{list=\"people\"} 0"))
        XCTAssertTrue(text.contains("sectional_event_streams 0"))
    }

    /// Requests answered on several server threads at once (counted in each thread's stripe)
    /// all appear, once each, in the scrape.
    func testMetricsCountConcurrentRequestsOnce() throws {
        let app = try TestApp()
        let port = app.port
        let answered = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            guard let client = try? HTTPTestClient(port: port) else { return }
            for _ in 0..<50 where (try? client.request("GET", "/healthz"))?.status == 200 { answered.withLock { $0 += 1 } }
        }
        XCTAssertEqual(answered.withLock { $0 }, 200)
        let counted = ["sectional_http_requests_total{route=\"/healthz\",method=\"GET\",status=\"200\"} 200",
                       "sectional_http_request_duration_seconds_count{route=\"/healthz\"} 200"]
        XCTAssertTrue(eventually { counted.allSatisfy { (try? app.get("/metrics").text.contains($0)) == true } },
                      (try? app.get("/metrics").text) ?? "")
    }

    func testMetricsCountMadeUpMethodsAsOther() throws {
        let app = try TestApp()
        for method in ["FOO", "BAR", "BAZ", "GET"] { _ = try app.request(method, "/healthz") }
        let counted = ["route=\"/healthz\",method=\"other\",status=\"405\"} 3", "route=\"/healthz\",method=\"GET\",status=\"200\"} 1"]
        XCTAssertTrue(eventually { counted.allSatisfy { (try? app.get("/metrics").text.contains($0)) == true } },
                      (try? app.get("/metrics").text) ?? "")
        XCTAssertFalse(try app.get("/metrics").text.contains("method=\"FOO\""))
    }

    func testMetricsGaugeTheSizeOfEveryBoundedStructure() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])                          // a batch: one version, one row
        XCTAssertEqual(try app.put("people", "p1", #"{"name":"Ada","team":"Sales"}"#).status, 200)
        XCTAssertEqual(try app.put("people", "p2", #"{"name":"Bo","team":"Sales"}"#).status, 201)
        _ = try app.get("/v1/lists/people/rows").expect(200)
        let text = try app.get("/metrics").text
        XCTAssertTrue(text.contains("sectional_history_versions{list=\"people\"} 4\n"), "the first version and three writes: \(text)")
        XCTAssertTrue(text.contains("sectional_history_rows{list=\"people\"} 3\n"), text)
        XCTAssertTrue(text.contains("sectional_answer_cache_entries 1\n"), text)
        XCTAssertTrue(text.contains("sectional_queued_writes 0\n"), text)
        XCTAssertTrue(text.contains("sectional_reads_waiting_for_version 0\n"), text)
        XCTAssertTrue(text.contains("# TYPE sectional_pending_frees gauge\n"), text)
    }

    func testTheAPIDocumentIsServed() throws {
        let app = try TestApp()
        let document = try app.get("/openapi.json")
        XCTAssertEqual(document.status, 200)
        XCTAssertEqual(try document.json["openapi"] as? String, "3.1.0")
        XCTAssertNotNil(try (document.json["paths"] as? [String: Any])?["/v1/lists/{list}/rows"])
    }
}
