import HTTPServer
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
        XCTAssertTrue(HTTPMethod.head.isRead)
        XCTAssertFalse(HTTPMethod.post.isRead)
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
