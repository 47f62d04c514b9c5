import Dispatch
import Foundation
import Synchronization
import TestSupport
import XCTest

/// Write answers say their version; a read that asks for a version is answered once it is
/// applied, or `503 not-caught-up` after a second.
final class ReadYourWritesTests: XCTestCase {
    func testAWriteSaysItsVersionAndAReadAtThatVersionIsAnsweredAtOnce() throws {
        let app = try TestApp()
        let written = try app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#).expect(201)
        let version = try XCTUnwrap(written.header("Sectional-Version"))
        XCTAssertEqual("\"\(version)\"", written.header("ETag"), "the record's version is the commit's")
        let read = try app.get("/v1/lists/people?minVersion=\(version)").expect(200)
        XCTAssertEqual(try read.json.value("version", as: Int.self), Int(version))
        XCTAssertEqual(try app.request("GET", "/v1/lists/people/rows", headers: [("Sectional-Min-Version", version)]).status, 200)
        let batch = try app.request("POST", "/v1/collections/people/batch", json: #"{"delete":["p1"]}"#).expect(200)
        XCTAssertEqual(batch.header("Sectional-Version"), String(Int(version)! + 1))
    }

    func testAReadAheadOfTheServerWaitsThenAnswers503OrIsReleasedByTheWrite() throws {
        let app = try TestApp()
        let now = try XCTUnwrap(Int(app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#).header("Sectional-Version") ?? ""))
        let refused = try app.get("/v1/lists/people?minVersion=\(now + 100)")
        XCTAssertEqual(refused.slug, "not-caught-up")
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.header("Retry-After"), "1")
        XCTAssertEqual(try app.get("/v1/lists/people?minVersion=soon").slug, "invalid-version")

        let port = app.port
        let status = Mutex<Int?>(nil)
        DispatchQueue.global().async {
            let answer = try? HTTPTestClient(port: port).request("GET", "/v1/lists/people", headers: [("Sectional-Min-Version", "\(now + 1)")])
            status.withLock { $0 = answer?.status ?? -1 }
        }
        // The read waits for the next version; the write lets it through.
        try app.put("people", "p2", #"{"name":"Bo","team":"Design"}"#).expect(201)
        XCTAssertTrue(eventually(within: 5) { status.withLock { $0 } != nil })
        XCTAssertEqual(status.withLock { $0 }, 200)
    }
}
