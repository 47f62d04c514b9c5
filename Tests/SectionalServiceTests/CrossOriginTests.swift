import Foundation
import TestSupport
import XCTest

/// CORS as it crosses the wire: every CORS field exactly once (a browser refuses
/// `Access-Control-Allow-Origin: *, *` and with it every preflighted request), on the preflight
/// and on the actual answer, for `*` and for an echoed origin (then with `Vary: Origin`, once).
final class CrossOriginTests: XCTestCase {
    static let corsFields = ["Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
                             "Access-Control-Max-Age", "Access-Control-Expose-Headers", "Access-Control-Allow-Credentials"]
    static let allowedHeaders = "Content-Type, Authorization, Accept-Language, If-Match, If-None-Match, Last-Event-ID, Sectional-Min-Version"
    static let exposedHeaders = "ETag, Link, Location, Retry-After, WWW-Authenticate, Sectional-Version"
    let origin = "http://127.0.0.1:8765"
    let record = "/v1/collections/people/records/p1"

    /// The test app's config with `server.corsOrigins` set.
    static func config(origins: [String]) -> String {
        let list = origins.map { "\"\($0)\"" }.joined(separator: ", ")
        return "{ \"server\": { \"corsOrigins\": [\(list)] }," + TestApp.teamsConfig.drop { $0 != "{" }.dropFirst()
    }

    /// Answers the server makes before the routes see the request (a body over the limit, a
    /// malformed head) carry the CORS and cache fields too, so a browser script reads them.
    func testAnswersToTheHeadAloneCarryTheFieldsToo() throws {
        let app = try TestApp(config: Self.config(origins: ["*"]))
        let client = try app.client()
        try client.send("PUT \(record) HTTP/1.1\r\nHost: x\r\nOrigin: \(origin)\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n")
        let tooLarge = try client.readAnswer()
        XCTAssertEqual(tooLarge.status, 413)
        assertOnce(tooLarge, ["Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": Self.exposedHeaders], "413")
        XCTAssertEqual(tooLarge.header("Cache-Control"), "no-store")
        let framing = try app.request("GET", "/v1/lists/people", headers: [("Origin", origin), ("Content-Length", "1"), ("Content-Length", "2")])
        XCTAssertEqual(framing.status, 400)
        assertOnce(framing, ["Access-Control-Allow-Origin": "*"], "400")
    }

    /// A head that leaves libmicrohttpd no room for the answer's fields gets a small problem in
    /// its place, which a script on another origin can read too.
    func testTheProblemInPlaceOfAnAnswerWithNoRoomCarriesTheOrigin() throws {
        let app = try TestApp(config: Self.config(origins: ["*"]))
        let client = try app.client()
        try client.send("GET /v1/lists/people HTTP/1.1\r\nHost: x\r\nOrigin: \(origin)\r\n" +
                        "X-Pad: \(String(repeating: "p", count: 15_600))\r\n\r\n")
        let text = try client.readUntilClosed()
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 400 "), String(text.prefix(300)))
        XCTAssertTrue(text.contains("fewer query parameters or header fields"), text)
        XCTAssertTrue(text.contains("\r\nAccess-Control-Allow-Origin: *\r\n"), String(text.prefix(400)))
        XCTAssertEqual(try app.request("GET", "/healthz").status, 200)
    }

    func testWildcardPreflightAndActualAnswersCarryEachFieldOnce() throws {
        let app = try TestApp(config: Self.config(origins: ["*"]))
        let preflight = try app.request("OPTIONS", record, headers: [
            ("Origin", origin), ("Access-Control-Request-Method", "PUT"), ("Access-Control-Request-Headers", "content-type")])
        XCTAssertEqual(preflight.status, 204)
        assertOnce(preflight, ["Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "DELETE, GET, HEAD, PATCH, PUT, OPTIONS",
                               "Access-Control-Allow-Headers": Self.allowedHeaders, "Access-Control-Max-Age": "600"],
                   absent: ["Access-Control-Expose-Headers"], "preflight")
        XCTAssertEqual(varyValues(preflight).filter { $0 == "origin" }, [], "`*` does not vary by origin")

        let put = try app.put("people", "p1", #"{"name":"Ann","team":"Core","email":"a@example.com"}"#, headers: [("Origin", origin)])
        XCTAssertEqual(put.status, 201, put.text)
        assertOnce(put, ["Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": Self.exposedHeaders], "PUT")

        let read = try app.request("GET", "/v1/lists/people", headers: [("Origin", origin)])
        XCTAssertEqual(read.status, 200)
        let tag = try XCTUnwrap(read.header("ETag"))
        assertOnce(read, ["Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": Self.exposedHeaders], "GET")

        let conditionalPreflight = try app.request("OPTIONS", "/v1/lists/people", headers: [
            ("Origin", origin), ("Access-Control-Request-Method", "GET"), ("Access-Control-Request-Headers", "if-none-match")])
        XCTAssertEqual(conditionalPreflight.status, 204)
        assertOnce(conditionalPreflight, ["Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": Self.allowedHeaders],
                   "conditional GET preflight")
        let notModified = try app.request("GET", "/v1/lists/people", headers: [("Origin", origin), ("If-None-Match", tag)])
        XCTAssertEqual(notModified.status, 304)
        assertOnce(notModified, ["Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": Self.exposedHeaders], "304")
    }

    func testListedOriginIsEchoedOnceWithVaryOrigin() throws {
        let app = try TestApp(config: Self.config(origins: ["https://other.example", origin]))
        try app.seed((1...40).map { ("p\($0)", "Person \($0)", "Team") })
        let preflight = try app.request("OPTIONS", record, headers: [("Origin", origin), ("Access-Control-Request-Method", "PUT")])
        XCTAssertEqual(preflight.status, 204)
        assertOnce(preflight, ["Access-Control-Allow-Origin": origin, "Access-Control-Allow-Methods": "DELETE, GET, HEAD, PATCH, PUT, OPTIONS",
                               "Access-Control-Allow-Headers": Self.allowedHeaders, "Access-Control-Max-Age": "600"],
                   absent: ["Access-Control-Expose-Headers"], "preflight")
        XCTAssertEqual(varyValues(preflight), ["origin"], "preflight Vary")

        // A gzip-compressed actual answer: Vary names both Origin and Accept-Encoding, each once.
        let read = try app.request("GET", "/v1/lists/people/rows", headers: [("Origin", origin), ("Accept-Encoding", "gzip")])
        XCTAssertEqual(read.status, 200)
        XCTAssertEqual(read.header("Content-Encoding"), "gzip")
        assertOnce(read, ["Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": Self.exposedHeaders], "GET")
        XCTAssertEqual(varyValues(read).sorted(), ["accept-encoding", "origin"], "GET Vary")
        let notModified = try app.request("GET", "/v1/lists/people/rows",
                                          headers: [("Origin", origin), ("If-None-Match", try XCTUnwrap(read.header("ETag"))),
                                                    ("Accept-Encoding", "gzip")])
        XCTAssertEqual(notModified.status, 304)
        assertOnce(notModified, ["Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": Self.exposedHeaders], "304")
        XCTAssertEqual(varyValues(notModified).filter { $0 == "origin" }, ["origin"], "304 Vary")

        // An origin not listed gets no CORS fields (the browser then refuses), and the answer
        // still says it varies by origin, as does one to a request without Origin.
        let refused = try app.request("OPTIONS", record, headers: [("Origin", "http://evil.example"), ("Access-Control-Request-Method", "PUT")])
        XCTAssertEqual(refused.status, 204)
        assertOnce(refused, [:], absent: Self.corsFields, "refused preflight")
        XCTAssertEqual(varyValues(refused), ["origin"])
        let plain = try app.get("/v1/lists/people")
        assertOnce(plain, [:], absent: Self.corsFields, "no Origin")
        XCTAssertEqual(varyValues(plain), ["origin", "accept-encoding"], "by origin, and by encoding as every answer with a body")
    }

    /// Each field in `expected` appears exactly once with that value; each in `absent` never.
    private func assertOnce(_ answer: HTTPTestClient.Answer, _ expected: [String: String], absent: [String] = [], _ label: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        for (name, value) in expected {
            let values = answer.headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
            XCTAssertEqual(values, [value], "\(label): \(name)", file: file, line: line)
        }
        for name in absent {
            XCTAssertFalse(answer.headers.contains { $0.0.lowercased() == name.lowercased() }, "\(label): \(name) sent", file: file, line: line)
        }
        for name in Self.corsFields {
            let count = answer.headers.filter { $0.0.lowercased() == name.lowercased() }.count
            XCTAssertLessThanOrEqual(count, 1, "\(label): \(name) sent \(count) times", file: file, line: line)
        }
    }

    /// Every token of every `Vary` field, lowercased, in order.
    private func varyValues(_ answer: HTTPTestClient.Answer) -> [String] {
        answer.headers.filter { $0.0.lowercased() == "vary" }
            .flatMap { $0.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }
    }
}
