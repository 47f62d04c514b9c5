import ListStore
@testable import SectionalService
import XCTest

/// The pure parts of webhook delivery: the body, the signature, the backoff, the status line.
final class WebhookUnitTests: XCTestCase {
    func testTheSignatureIsTheHexHMACSHA256OfTheBody() {
        // RFC 4231, test case 2.
        let signer = WebhookSigner(secret: Array("Jefe".utf8))
        XCTAssertEqual(signer.signature(of: Array("what do ya want for nothing?".utf8)),
                       "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    func testTheBodyNamesTheListVersionAndUserOnlyWhenThereIsOne() {
        let whole = PendingDelivery(webhook: "h", list: "contacts", partition: "", user: nil, version: 42, attempts: 0)
        XCTAssertEqual(String(decoding: WebhookSigner.body(of: whole), as: UTF8.self), #"{"list":"contacts","version":42}"#)
        let user = PendingDelivery(webhook: "h", list: "orders", partition: "s:al\"ice", user: #""al\"ice""#, version: 7, attempts: 3)
        XCTAssertEqual(String(decoding: WebhookSigner.body(of: user), as: UTF8.self), #"{"list":"orders","version":7,"user":"al\"ice"}"#)
    }

    func testTheBackoffDoublesFromTheFirstWaitUpToTheLongestWithJitter() throws {
        let settings = WebhookSettings(url: "http://h/", target: try WebhookURL.parse("http://h/").get(), lists: ["l"],
                                       secretEnvironmentVariable: "S")
        for attempts in 0..<40 {
            let full: Int64 = min(300_000, 1_000 << Int64(min(attempts, 30)))
            for _ in 0..<20 {
                let wait = WebhookWorker.backoffMilliseconds(attempts: attempts, settings: settings)
                XCTAssertTrue((full / 2)...full ~= wait, "attempt \(attempts + 1): \(wait) ms outside [\(full / 2), \(full)]")
            }
        }
    }

    func testOnlyAnHTTPStatusLineGivesAStatus() {
        XCTAssertEqual(HTTPPoster.statusCode(Array("HTTP/1.1 204 No Content\r\n".utf8)), 204)
        XCTAssertEqual(HTTPPoster.statusCode(Array("HTTP/1.0 503\r\n".utf8)), 503)
        XCTAssertNil(HTTPPoster.statusCode(Array("SSH-2.0-OpenSSH\r\n".utf8)))
        XCTAssertNil(HTTPPoster.statusCode(Array("HTTP/1.1 20 OK\r\n".utf8)))
        XCTAssertNil(HTTPPoster.statusCode(Array("HTTP/1.1 999 Odd\r\n".utf8)))
    }
}

/// Which workers a commit wakes.
final class WebhookNudgeTests: XCTestCase {
    func testACommitWakesOnlyTheWebhooksThatFollowAListItMoved() throws {
        func target(_ url: String, _ lists: [String]) throws -> WebhookTarget {
            WebhookTarget(settings: WebhookSettings(url: url, target: try WebhookURL.parse(url).get(), lists: lists,
                                                    secretEnvironmentVariable: "S"), secret: [1])
        }
        let delivery = WebhookDelivery(targets: [try target("http://a/", ["contacts"]), try target("http://b/", ["orders"]),
                                                 try target("http://c/", ["orders", "contacts"])],
                                       store: MemoryStore(), metrics: Metrics(), log: Log(level: .error))
        XCTAssertEqual(delivery.following(["contacts"]).map(\.lists), [["contacts"], ["orders", "contacts"]])
        XCTAssertEqual(delivery.following(["orders", "orders"]).map(\.lists), [["orders"], ["orders", "contacts"]])
        XCTAssertTrue(delivery.following(["settings"]).isEmpty)
    }
}
