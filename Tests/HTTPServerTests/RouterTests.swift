import HTTPServer
import XCTest

final class RouterTests: XCTestCase {
    func testLiteralSegmentsWinOverParameters() {
        var router = Router()
        router.get("/v1/lists/{list}") { request in .json("\"param:\(request.parameter("list"))\"") }
        router.get("/v1/lists/special") { _ in .json("\"literal\"") }
        router.get("/v1/lists/{list}/rows/{rowId}") { request in
            .json("\"\(request.parameter("list"))/\(request.parameter("rowId"))\"")
        }
        var a = Request(method: "GET", uri: "/v1/lists/special")
        XCTAssertEqual(String(decoding: router.respond(to: &a).body, as: UTF8.self), "\"literal\"")
        var b = Request(method: "GET", uri: "/v1/lists/contacts")
        XCTAssertEqual(String(decoding: router.respond(to: &b).body, as: UTF8.self), "\"param:contacts\"")
        XCTAssertEqual(b.route, "/v1/lists/{list}")
        var c = Request(method: "GET", uri: "/v1/lists/c/rows/p-1?x=1")
        XCTAssertEqual(String(decoding: router.respond(to: &c).body, as: UTF8.self), "\"c/p-1\"")
        var d = Request(method: "GET", uri: "/v1/lists/c/rows")
        XCTAssertEqual(router.respond(to: &d).status, 404)
    }

    func testUnexpectedErrorsBecome500WithoutInternals() {
        struct Secret: Error {}
        var router = Router()
        router.get("/boom") { _ in throw Secret() }
        var request = Request(method: "GET", uri: "/boom")
        let response = router.respond(to: &request)
        XCTAssertEqual(response.status, 500)
        let text = String(decoding: response.body, as: UTF8.self)
        XCTAssertTrue(text.contains("/problems/internal"))
        XCTAssertFalse(text.contains("Secret"))
    }

    func testHeaderLookupIgnoresCase() {
        let headers = HTTPHeaders([("Content-Type", "application/json"), ("X-A", "1")])
        XCTAssertEqual(headers["content-type"], "application/json")
        XCTAssertEqual(headers["x-a"], "1")
        XCTAssertNil(headers["x-b"])
    }
}
