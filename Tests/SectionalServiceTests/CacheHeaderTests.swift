import Foundation
import TestSupport
import XCTest

/// Every answer says how it may be cached, and every negotiated answer says what it varies by.
final class CacheHeaderTests: XCTestCase {
    private func vary(_ answer: HTTPTestClient.Answer) -> Set<String> {
        Set(answer.headers.filter { $0.0.lowercased() == "vary" }
            .flatMap { $0.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } })
    }

    func testReadsAreStoredButRevalidatedAndVaryByEncodingCompressedOrNot() throws {
        let app = try TestApp()
        try app.seed((0..<40).map { ("p\($0)", "Person \($0)", "Design") })
        try app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#).expect(200)
        for target in ["/v1/lists/people", "/v1/lists/people/rows", "/v1/collections/people/records/p1", "/", "/v1/lists"] {
            for encoding in [nil, "gzip"] {
                let answer = try app.request("GET", target, headers: encoding.map { [("Accept-Encoding", $0)] } ?? [])
                XCTAssertEqual(answer.status, 200, target)
                XCTAssertEqual(answer.header("Cache-Control"), "no-cache", "\(target) \(encoding ?? "identity")")
                XCTAssertTrue(vary(answer).contains("Accept-Encoding"), "\(target) \(encoding ?? "identity"): \(answer.headers)")
            }
        }
        let page = try app.get("/v1/lists/people/rows")
        let tag = try XCTUnwrap(page.header("ETag"))
        let revalidated = try app.request("GET", "/v1/lists/people/rows", headers: [("If-None-Match", tag)])
        XCTAssertEqual(revalidated.status, 304)
        XCTAssertTrue(vary(revalidated).contains("Accept-Encoding"), "a 304 varies as its 200 does")
    }

    /// Answers the server makes before routing (framing `400`s, `501`, a body over the limit's
    /// `413`) say how to cache them and vary as every problem answer does.
    func testAnswersMadeBeforeRoutingSayHowToCacheThem() throws {
        let app = try TestApp()
        for head in ["GET * HTTP/1.1\r\nHost: x\r\n\r\n",
                     "PUT /v1/collections/people/records/p1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n"] {
            let client = try HTTPTestClient(port: app.port, timeoutSeconds: 5)
            try client.send(head)
            let answer = try client.readAnswer()
            XCTAssertTrue([400, 501].contains(answer.status), "\(head): \(answer.status)")
            XCTAssertEqual(answer.header("Cache-Control"), "no-store", head)
            XCTAssertEqual(answer.header("Vary"), "Accept-Encoding", head)
        }
    }

    func testEventStreamsAreNeverStored() throws {
        let app = try TestApp()
        let client = try HTTPTestClient(port: app.port, timeoutSeconds: 5)
        try client.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readUntil(": connected")
        XCTAssertTrue(head.contains("Cache-Control: no-store\r\n"), head)
        let p = try PartitionApp()
        let stream = try HTTPTestClient(port: p.app.port, timeoutSeconds: 5)
        try stream.send("GET /v1/lists/orders/events?user=ann HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(PartitionApp.serviceToken)\r\n\r\n")
        XCTAssertTrue(try stream.readUntil(": connected").contains("Cache-Control: private, no-store\r\n"))
    }

    func testProblemsAndWriteAnswersAreNeverStored() throws {
        let app = try TestApp()
        XCTAssertEqual(try app.get("/v1/lists/nothing").header("Cache-Control"), "no-store")
        XCTAssertEqual(try app.get("/v1/lists/people/tags/999").header("Cache-Control"), "no-store")
        XCTAssertEqual(try app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#).header("Cache-Control"), "no-store")
        XCTAssertEqual(try app.request("DELETE", "/v1/collections/people/records/p1").header("Cache-Control"), "no-store")
    }

    func testListsThatNeedATokenArePrivateAndVaryByAuthorization() throws {
        let p = try PartitionApp()
        try p.order("a1", owner: "alice")
        for target in ["/v1/lists/orders", "/v1/lists/orders/rows", "/v1/lists/orders/changes?since=0", "/v1/lists/orders/definition",
                       "/v1/lists"] {
            let answer = try p.get(target, as: "alice")
            XCTAssertEqual(answer.status, 200, target)
            XCTAssertEqual(answer.header("Cache-Control"), "private, no-cache", target)
            XCTAssertTrue(vary(answer).isSuperset(of: ["Authorization", "Accept-Encoding"]), "\(target): \(answer.headers)")
        }
        let refused = try p.app.get("/v1/lists/orders")
        XCTAssertEqual(refused.header("Cache-Control"), "no-store")
        for target in ["/v1/lists/orders", "/v1/lists/orders/definition"] {
            let failed = try p.get(target, as: "alice", headers: [("If-Match", "\"x\"")])
            XCTAssertEqual(failed.status, 412, target)
            XCTAssertEqual(failed.header("Cache-Control"), "no-store", "\(target): a problem is never stored")
        }
        XCTAssertEqual(try p.app.get("/v1/lists/all").header("Cache-Control"), "no-cache", "a public list stays shareable")
        let index = try p.app.get("/v1/lists")
        XCTAssertEqual(index.header("Cache-Control"), "no-cache", "the anonymous index is shareable")
        XCTAssertTrue(vary(index).contains("Authorization"), "but varies by who asks: \(index.headers)")
    }
}
