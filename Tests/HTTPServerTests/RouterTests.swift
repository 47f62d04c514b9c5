import HTTPServer
import TestSupport
import XCTest

final class RouterTests: XCTestCase {
    func testLiteralSegmentsWinOverParameters() {
        var router = Router()
        router.get("/v1/lists/{list}") { request in .json("\"param:\(request.parameter("list"))\"") }
        router.get("/v1/lists/special") { _ in .json("\"literal\"") }
        router.get("/v1/lists/{list}/rows/{rowId}") { request in
            .json("\"\(request.parameter("list"))/\(request.parameter("rowId"))\"")
        }
        var a = Request(method: .get, uri: "/v1/lists/special")
        XCTAssertEqual(String(decoding: router.respond(to: &a).body, as: UTF8.self), "\"literal\"")
        var b = Request(method: .get, uri: "/v1/lists/contacts")
        XCTAssertEqual(String(decoding: router.respond(to: &b).body, as: UTF8.self), "\"param:contacts\"")
        XCTAssertEqual(b.route, "/v1/lists/{list}")
        var c = Request(method: .get, uri: "/v1/lists/c/rows/p-1?x=1")
        XCTAssertEqual(String(decoding: router.respond(to: &c).body, as: UTF8.self), "\"c/p-1\"")
        var d = Request(method: .get, uri: "/v1/lists/c/rows")
        XCTAssertEqual(router.respond(to: &d).status, .notFound)
    }

    func testAGroupGuardRunsBeforeEveryRouteOfTheGroupAndOnlyThose() {
        var router = Router()
        let refuse: Router.Guard = { request throws(HTTPError) in
            guard request.headers["X-Key"] == "k" else { throw HTTPError(.unauthorized, "unauthorized", detail: "no key") }
        }
        let ran = Counter()
        router.guarded("key", by: refuse) { router in
            router.put("/v1/things/{id}") { _ in ran.increment(); return .empty() }
            router.guarded("admin", by: { request throws(HTTPError) in
                guard request.headers["X-Admin"] != nil else { throw HTTPError(.forbidden, "forbidden", detail: "not admin") }
            }) { router in
                router.delete("/v1/things/{id}") { _ in ran.increment(); return .empty() }
            }
        }
        router.get("/v1/things/{id}") { _ in .json("1") }
        XCTAssertEqual(router.routes.map { "\($0.method) \($0.template) \($0.guards)" },
                       ["PUT /v1/things/{id} [\"key\"]", "DELETE /v1/things/{id} [\"key\", \"admin\"]", "GET /v1/things/{id} []"],
                       "routes are listed with the names of their guards, outermost first")

        var open = Request(method: .get, uri: "/v1/things/a")
        XCTAssertEqual(router.respond(to: &open).status, .ok, "outside the group: no guard")
        var head = Request(method: .head, uri: "/v1/things/a")
        XCTAssertEqual(router.respond(to: &head).status, .ok)
        var put = Request(method: .put, uri: "/v1/things/a")
        XCTAssertEqual(router.respond(to: &put).status, .unauthorized)
        var delete = Request(method: .delete, uri: "/v1/things/a", headers: HTTPHeaders([("X-Key", "k")]))
        XCTAssertEqual(router.respond(to: &delete).status, .forbidden, "an inner group adds its guard to the outer one")
        XCTAssertEqual(ran.value, 0, "no handler ran for a refused request")

        let match = router.match(["v1", "things", "a"])
        XCTAssertThrowsError(try match?.admit(Request(method: .put, uri: "/v1/things/a")), "admit runs the guard from the head alone")
        XCTAssertNoThrow(try match?.admit(Request(method: .put, uri: "/v1/things/a", headers: HTTPHeaders([("X-Key", "k")]))))
        XCTAssertNoThrow(try match?.admit(Request(method: .get, uri: "/v1/things/a")))
        var allowed = Request(method: .put, uri: "/v1/things/a", headers: HTTPHeaders([("X-Key", "k")]))
        XCTAssertEqual(router.respond(to: &allowed).status, .noContent)
        XCTAssertEqual(ran.value, 1)
    }

    func testAQueryParameterGivenTwiceIsRefusedBeforeTheHandlerRunsUnlessRepeatable() {
        var router = Router()
        let ran = Counter()
        router.get("/v1/things") { _ in ran.increment(); return .json("1") }
        var twice = Request(method: .get, uri: "/v1/things?size=2&view=v&size=2")
        let refused = router.respond(to: &twice)
        XCTAssertEqual(refused.status, .badRequest)
        XCTAssertTrue(String(decoding: refused.body, as: UTF8.self).contains("/problems/invalid-request"))
        // Long queries are checked too (through a set), and empty names (`?=x`) name nothing.
        let many = (0..<40).map { "p\($0)=\($0)" }.joined(separator: "&")
        var longTwice = Request(method: .get, uri: "/v1/things?\(many)&p7=again")
        XCTAssertEqual(router.respond(to: &longTwice).status, .badRequest)
        XCTAssertEqual(longTwice.repeatedQueryName(), "p7")
        XCTAssertEqual(ran.value, 0, "no handler ran for a refused request")
        for uri in ["/v1/things?\(many)", "/v1/things?=a&=b&x=1", "/v1/things?a=1&b=2"] {
            var once = Request(method: .get, uri: uri)
            XCTAssertNil(once.repeatedQueryName(), uri)
            XCTAssertEqual(router.respond(to: &once).status, .ok, uri)
        }
        XCTAssertEqual(ran.value, 3)
        // Names the router is told are repeatable pass, short query or long.
        router.repeatableQuery = { $0.hasPrefix("f.") }
        for uri in ["/v1/things?f.a=1&f.a=2", "/v1/things?\(many)&f.a=1&f.a=2"] {
            var listed = Request(method: .get, uri: uri)
            XCTAssertEqual(router.respond(to: &listed).status, .ok, uri)
        }
        var stillTwice = Request(method: .get, uri: "/v1/things?f.a=1&size=1&f.a=2&size=2")
        XCTAssertEqual(router.respond(to: &stillTwice).status, .badRequest)
        XCTAssertEqual(stillTwice.repeatedQueryName(except: router.repeatableQuery), "size")
        XCTAssertEqual(ran.value, 5)
    }

    func testUnexpectedErrorsBecome500WithoutInternals() {
        struct Secret: Error {}
        var router = Router()
        router.get("/boom") { _ in throw Secret() }
        var request = Request(method: .get, uri: "/boom")
        let response = router.respond(to: &request)
        XCTAssertEqual(response.status, .internalServerError)
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
