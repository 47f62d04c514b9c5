import CMicroHTTPD
@testable import HTTPServer
import Locking
import TestSupport
import XCTest

/// A ``ResponseMemo``: the libmicrohttpd response built for an answer is queued again for the
/// next request with the same status, fields and body, and only for those.
final class ResponseMemoTests: XCTestCase {
    private let body = Array(String(repeating: #"{"row":1},"#, count: 300).utf8)

    /// Builds a real libmicrohttpd response (as the server does), counting the builds.
    private final class Builder {
        var builds = 0
        func build(_ response: Response) -> (answer: OpaquePointer, headerBytes: Int)? {
            builds += 1
            guard let answer = MHD_create_response_from_buffer(0, nil, MHD_ResponseMemoryMode.RESPMEM_PERSISTENT) else { return nil }
            return (answer, 0)
        }
    }

    private func response(_ body: [UInt8], memo: ResponseMemo, variant: String) -> Response {
        var response = Response.json(body)
        response.memo = memo
        response.headers.add("X-Variant", variant)
        return response
    }

    func testTheSameAnswerIsBuiltOnceAndAnotherIsBuiltAgain() throws {
        let memo = ResponseMemo(body)
        let builder = Builder()
        let first = try XCTUnwrap(memo.answer(for: response(body, memo: memo, variant: "a"), build: builder.build))
        let again = try XCTUnwrap(memo.answer(for: response(body, memo: memo, variant: "a"), build: builder.build))
        XCTAssertEqual(builder.builds, 1)
        XCTAssertEqual(first.answer, again.answer)
        XCTAssertFalse(first.owned || again.owned, "a kept response belongs to the memo")

        let other = try XCTUnwrap(memo.answer(for: response(body, memo: memo, variant: "b"), build: builder.build))
        XCTAssertEqual(builder.builds, 2, "other fields: another response")
        XCTAssertNotEqual(other.answer, first.answer)

        var notModified = response(body, memo: memo, variant: "a")
        notModified.status = .notModified
        _ = try XCTUnwrap(memo.answer(for: notModified, build: builder.build))
        XCTAssertEqual(builder.builds, 3, "another status: another response")
    }

    func testABodyThatIsNotTheMemosOwnIsNotKept() {
        let memo = ResponseMemo(body)
        let builder = Builder()
        var copied = body
        copied[0] = copied[0]  // equal bytes in storage of its own (the write copies it)
        XCTAssertNil(memo.answer(for: response(copied, memo: memo, variant: "a"), build: builder.build))
        XCTAssertEqual(builder.builds, 0)
    }

    func testPastItsRoomAResponseIsTheCallersToFree() throws {
        let memo = ResponseMemo(body)
        let builder = Builder()
        for variant in 0..<ResponseMemo.maximumPrepared {
            XCTAssertFalse(try XCTUnwrap(memo.answer(for: response(body, memo: memo, variant: "\(variant)"), build: builder.build)).owned)
        }
        let extra = try XCTUnwrap(memo.answer(for: response(body, memo: memo, variant: "extra"), build: builder.build))
        XCTAssertTrue(extra.owned)
        MHD_destroy_response(extra.answer)
    }

    /// Through a real server: plain, gzip and `HEAD`, and more header variants than the memo
    /// keeps, each answered with its own fields and the right bytes, every time.
    func testAServerAnswersFromTheMemoWithTheRightFieldsAndBytes() throws {
        let memo = ResponseMemo(body)
        var router = Router()
        router.get("/memo/{variant}") { [body] request in
            var response = Response.json(body)
            response.memo = memo
            response.headers.add("X-Variant", request.parameter("variant"))
            Compression.apply(to: &response, for: request)
            return response
        }
        let frozen = router
        let server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2)) { frozen.respond(to: &$0) }
        try server.start()
        defer { server.stop(gracePeriod: 1) }
        let gzip = try XCTUnwrap(Compression.gzip(body))
        let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        for round in 0..<3 {
            for variant in 0..<(ResponseMemo.maximumPrepared + 2) {
                let plain = try client.request("GET", "/memo/\(variant)")
                XCTAssertEqual(plain.status, 200)
                XCTAssertEqual(plain.body, body, "round \(round), variant \(variant)")
                XCTAssertEqual(plain.header("X-Variant"), "\(variant)")
                XCTAssertNil(plain.header("Content-Encoding"))

                let zipped = try client.request("GET", "/memo/\(variant)", headers: [("Accept-Encoding", "gzip")])
                XCTAssertEqual(zipped.body, gzip)
                XCTAssertEqual(zipped.header("Content-Encoding"), "gzip")
                XCTAssertEqual(zipped.header("X-Variant"), "\(variant)")
            }
            try client.send("HEAD /memo/0 HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try client.readAnswer(bodyExpected: false)
            XCTAssertEqual(head.status, 200)
            XCTAssertEqual(head.header("Content-Length"), "\(body.count)")
        }
    }

    /// What a memo keeps besides its body is counted as it is made, once each, and reported to
    /// its observer: the gzip form by its own size (not the input-sized buffer it was written
    /// into), each kept response by ``ResponseMemo/preparedBytes(headerBytes:)``.
    func testWhatTheMemoKeepsIsCountedOnceAsItIsMade() throws {
        let memo = ResponseMemo(body)
        let reported = Locked(0)
        XCTAssertEqual(memo.observe { grown in reported.withLock { $0 += grown } }, 0)
        let gzip = try XCTUnwrap(memo.gzip(of: body) ?? nil, "300 repeated rows compress")
        XCTAssertLessThan(gzip.capacity, body.count / 4, "the gzip form keeps only its own bytes")
        XCTAssertEqual(memo.bytes, gzip.capacity)
        _ = memo.gzip(of: body)
        XCTAssertEqual(memo.bytes, gzip.capacity, "made once, counted once")
        let builder = Builder()
        _ = try XCTUnwrap(memo.answer(for: response(body, memo: memo, variant: "a"), build: builder.build))
        _ = try XCTUnwrap(memo.answer(for: response(body, memo: memo, variant: "a"), build: builder.build))
        let kept = gzip.capacity + ResponseMemo.preparedBytes(headerBytes: 0)
        XCTAssertEqual(memo.bytes, kept)
        XCTAssertEqual(reported.withLock { $0 }, kept, "every growth reported")
        XCTAssertEqual(memo.observe { _ in }, kept, "a later observer starts from what is kept")
    }
}
