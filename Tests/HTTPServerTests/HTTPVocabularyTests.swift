@testable import HTTPServer
import XCTest

/// Methods and statuses as types: what the wire text maps to and back.
final class HTTPVocabularyTests: XCTestCase {
    func testKnownMethodsHaveCasesAndOthersKeepTheirToken() {
        let known: [HTTPMethod] = [.get, .head, .post, .put, .delete, .options, .patch, .connect, .trace]
        for method in known {
            XCTAssertEqual(HTTPMethod(method.rawValue), method, method.rawValue)
            if case .other = method { XCTFail("\(method) has no case") }
        }
        XCTAssertEqual(HTTPMethod("get"), .other("get"), "methods are case-sensitive")
        XCTAssertEqual(HTTPMethod("PURGE").rawValue, "PURGE")
        // As the request line's C string: the same methods.
        for token in known.map(\.rawValue) + ["get", "PURGE", "GETX", "GE", ""] {
            XCTAssertEqual(token.withCString { HTTPMethod(cString: $0) }, HTTPMethod(token), token)
        }
        XCTAssertTrue(HTTPMethod.head.isRead)
        XCTAssertFalse(HTTPMethod.post.isRead)
    }

    func testHeaderFieldsAreEqualOnlyByteForByte() {
        let long = String(repeating: "v", count: 40)  // stored on the heap, not inline
        let fields = HTTPHeaders([("ETag", long), ("Vary", "Accept-Encoding")])
        XCTAssertTrue(fields == fields, "the same strings")
        let copied = HTTPHeaders([(String(decoding: Array("ETag".utf8), as: UTF8.self), String(decoding: Array(long.utf8), as: UTF8.self)),
                                  ("Vary", String(decoding: Array("Accept-Encoding".utf8), as: UTF8.self))])
        XCTAssertTrue(fields == copied, "other storage, the same bytes")
        XCTAssertFalse(fields == HTTPHeaders([("ETag", long + "x"), ("Vary", "Accept-Encoding")]))
        XCTAssertFalse(fields == HTTPHeaders([("Vary", "Accept-Encoding"), ("ETag", long)]), "order matters")
        XCTAssertFalse(fields == HTTPHeaders([("ETag", long)]))
        // Canonically equivalent, but other bytes: String's == would call them equal.
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        XCTAssertEqual(composed, decomposed)
        XCTAssertFalse(HTTPHeaders([("X-Name", composed)]) == HTTPHeaders([("X-Name", decomposed)]))
        XCTAssertFalse(HTTPHeaders([("X-Name", composed + long)]) == HTTPHeaders([("X-Name", decomposed + long)]))
    }

    func testStatusesCarryTheirCodeAndReasonPhrase() {
        XCTAssertEqual(HTTPStatus.preconditionFailed.code, 412)
        XCTAssertEqual(HTTPStatus.serviceUnavailable.description, "503 Service Unavailable")
        XCTAssertEqual(HTTPStatus(code: 431).description, "431")
        XCTAssertEqual(HTTPStatus(code: 404), .notFound)
        XCTAssertTrue(HTTPStatus.badRequest.isError)
        XCTAssertFalse(HTTPStatus.notModified.isError)
    }

    func testAProblemAnswerCarriesItsStatusInTheHeadAndTheBody() {
        let answer = HTTPError(.conflict, "conflict-here", detail: "d").response
        XCTAssertEqual(answer.status, .conflict)
        XCTAssertTrue(String(decoding: answer.body, as: UTF8.self).contains(#""status":409"#))
    }
}
