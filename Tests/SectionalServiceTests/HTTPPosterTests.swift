import Foundation
@testable import SectionalService
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Webhook deliveries against receivers written by hand: interim answers (`1xx`) are read past
/// to the final status, which alone judges the delivery.
final class HTTPPosterTests: XCTestCase {
    /// The status `post` gets from a receiver that reads the request's head and then writes `answer`.
    private func status(answering answer: String, timeoutSeconds: Double = 5) throws -> Result<Int, HTTPPoster.Failure> {
        let listener = try LoopbackListener { connection in
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = recv(connection, &buffer, buffer.count, 0)
            _ = answer.utf8CString.withUnsafeBufferPointer { send(connection, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
            // Held open (as a receiver that says no more would) until the client has read.
            var rest = [UInt8](repeating: 0, count: 16)
            _ = recv(connection, &rest, rest.count, 0)
            close(connection)
        }
        defer { listener.stop() }
        let url = try WebhookURL.parse("http://127.0.0.1:\(listener.port)/hook").get()
        return HTTPPoster.post(Array(#"{"list":"l","version":1}"#.utf8), to: url, headers: [], timeoutSeconds: timeoutSeconds)
    }

    func testInterimAnswersAreReadPastToTheFinalStatus() throws {
        XCTAssertEqual(try status(answering: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n").get(), 204)
        XCTAssertEqual(try status(answering: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 503 Busy\r\n\r\n").get(), 503)
        XCTAssertEqual(try status(answering: "HTTP/1.1 100 Continue\n\nHTTP/1.1 200 OK\n\n").get(), 200, "bare line feeds")
        XCTAssertEqual(try status(answering: "HTTP/1.1 204 No Content\r\n\r\n").get(), 204)
    }

    func testAnInterimAnswerAloneIsNoDelivery() throws {
        guard case .failure(let failure) = try status(answering: "HTTP/1.1 100 Continue\r\n\r\n", timeoutSeconds: 0.5) else {
            return XCTFail("a 100 Continue with no final answer counted as delivered")
        }
        XCTAssertTrue(failure.description.contains("timed out"), failure.description)
    }

    func testAnInterimAnswersHeadEnds() {
        XCTAssertEqual(HTTPPoster.headEnd(Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200".utf8)), 25)
        XCTAssertEqual(HTTPPoster.headEnd(Array("HTTP/1.1 100 Continue\n\nrest".utf8)), 23)
        XCTAssertNil(HTTPPoster.headEnd(Array("HTTP/1.1 100 Continue\r\nX: y\r\n".utf8)))
    }
}
