import Foundation
import TestSupport
import XCTest

/// The body limit (`server.maxBodyBytes`) for bodies without a declared length.
final class BodyLimitTests: XCTestCase {
    func testAChunkedBodyOverTheLimitIs413WithItsProblem() throws {
        let app = try TestApp(maxBodyBytes: 4096)
        let record = Array(("{\"name\":\"" + String(repeating: "a", count: 5000) + "\",\"team\":\"Design\"}").utf8)
        let client = try app.client()
        var message = Array("PUT /v1/collections/people/records/p1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for start in stride(from: 0, to: record.count, by: 1000) {
            let chunk = record[start..<min(start + 1000, record.count)]
            message += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
        }
        message += Array("0\r\n\r\n".utf8)
        try client.send(message)
        let answer = try client.readAnswer()
        XCTAssertEqual(answer.status, 413, answer.text)
        XCTAssertEqual(answer.slug, "body-too-large")
        XCTAssertEqual(try answer.problem["detail"] as? String, "The request body is larger than 4096 bytes.")
        XCTAssertEqual(try app.get("/v1/collections/people/records/p1").status, 404, "nothing was written")

        // Under the limit, the same framing is accepted.
        let small = Array(#"{"name":"Ada","team":"Design"}"#.utf8)
        let accepted = try app.client()
        try accepted.send(Array("PUT /v1/collections/people/records/p1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                          + Array("\(String(small.count, radix: 16))\r\n".utf8) + small + Array("\r\n0\r\n\r\n".utf8))
        XCTAssertEqual(try accepted.readAnswer().status, 201)
    }
}
