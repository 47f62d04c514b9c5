import Foundation
import TestSupport
import XCTest

final class CachingAndEventsTests: XCTestCase {
    func testEntityTagsAnswer304UntilTheListChanges() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        for target in ["/v1/lists/people", "/v1/lists/people/rows?pageSize=1", "/v1/lists/people/tags/0",
                       "/v1/lists/people/rows/p1", "/v1/lists/people/sections/1/rows", "/v1/lists/people/sections?type=team",
                       "/v1/lists/people/index-path?sectionType=team&rowType=person"] {
            let first = try app.get(target)
            XCTAssertEqual(first.status, 200, target)
            let tag = try XCTUnwrap(first.header("ETag"), target)
            let again = try app.request("GET", target, headers: [("If-None-Match", tag)])
            XCTAssertEqual(again.status, 304, target)
            XCTAssertEqual(again.header("ETag"), tag)
            XCTAssertTrue(again.body.isEmpty)
            XCTAssertEqual(try app.request("GET", target, headers: [("If-None-Match", "\"other\", W/\(tag)")]).status, 304)
            XCTAssertEqual(try app.request("HEAD", target, headers: [("If-None-Match", tag)]).status, 304)
        }
        let tag = try app.get("/v1/lists/people").header("ETag")!
        let view = try app.request("POST", "/v1/lists/people/views", json: #"{"hidden":["Design"]}"#).json["view"] as! String
        XCTAssertNotEqual(try app.get("/v1/lists/people?view=\(view)").header("ETag"), tag, "the view is part of the tag")
        try app.seed([("p2", "Grace", "Design")])
        let changed = try app.request("GET", "/v1/lists/people", headers: [("If-None-Match", tag)])
        XCTAssertEqual(changed.status, 200, "a write changes the tag")
        XCTAssertNotEqual(changed.header("ETag"), tag)
    }

    func testEventsArriveWithinASecondOfAWrite() throws {
        let app = try TestApp()
        let client = try HTTPTestClient(port: app.port, timeoutSeconds: 5)
        try client.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readUntil(": connected")
        XCTAssertTrue(head.contains("Content-Type: text/event-stream"), head)
        let written = Date()
        XCTAssertEqual(try app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#).status, 201)
        let version = try app.get("/v1/lists/people").json["version"] as! Int
        let event = try client.readUntil("\"version\":\(version)}")
        XCTAssertLessThan(Date().timeIntervalSince(written), 1.0)
        XCTAssertTrue(event.contains("id: \(version)\nevent: version\ndata: {\"list\":\"people\",\"version\":\(version)}"), event)
    }

    func testReconnectingWithAnOlderLastEventIDGetsAnEventAtOnce() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let version = try app.get("/v1/lists/people").json["version"] as! Int
        let client = try HTTPTestClient(port: app.port, timeoutSeconds: 5)
        try client.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: 0\r\n\r\n")
        XCTAssertTrue(try client.readUntil("event: version").contains("id: \(version)"))
        XCTAssertEqual(try app.get("/v1/lists/nothing/events").slug, "list-not-found")
    }

    func testAStalledEventClientDoesNotHoldUpWrites() throws {
        let app = try TestApp()
        let stalled = try HTTPTestClient(port: app.port)
        try stalled.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\n\r\n")
        let writer = try app.client()
        let started = Date()
        for n in 0..<300 {
            let answer = try writer.request("PUT", "/v1/collections/people/records/p\(n)", headers: [("Content-Type", "application/json")],
                                            body: Array("{\"name\":\"\(String(repeating: "x", count: 200))\",\"team\":\"T\"}".utf8))
            XCTAssertEqual(answer.status, 201)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        XCTAssertEqual(try app.get("/v1/lists/people").json["totalRowCount"] as? Int, 301)
    }
}
