import Dispatch
import Foundation
import Locking
import TestSupport
import XCTest
@testable import SectionalService

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

    }

    func testAWaitingReadIsReleasedWhenItsVersionIsApplied() {
        let applied = AppliedVersion(3)
        XCTAssertTrue(applied.wait(for: 3, timeout: 0), "an applied version needs no wait")
        XCTAssertFalse(applied.wait(for: 4, timeout: 0.01), "a version not applied in time")
        let released = Locked<Bool?>(nil)
        DispatchQueue.global().async { released.withLock { $0 = applied.wait(for: 5, timeout: 60) } }
        applied.advance(to: 4)
        applied.advance(to: 5)
        XCTAssertTrue(eventually(within: 10) { released.withLock { $0 } != nil })
        XCTAssertEqual(released.withLock { $0 }, true)
        XCTAssertEqual(applied.current, 5)
    }
}
