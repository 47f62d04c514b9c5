import Dispatch
import Foundation
import HTTPServer
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
        // A batch that changes nothing commits nothing: no number of its own, the store's current one.
        for nothing in ["{}", #"{"delete":["p1","nobody"]}"#] {
            let answer = try app.request("POST", "/v1/collections/people/batch", json: nothing).expect(200)
            XCTAssertEqual(answer.header("Sectional-Version"), String(Int(version)! + 1), nothing)
            XCTAssertEqual(try answer.json.value("version", as: Int.self), Int(version)! + 1, nothing)
            XCTAssertEqual(try app.version(), Int(version)! + 1, "the list did not move")
        }
    }

    /// Which requests ahead of the server wait: reads and view writes, not a CORS preflight of a
    /// view write (answered without reading the list, it waited up to a second before its 204).
    func testOnlyReadsAndViewWritesWaitForAVersion() {
        let rules = ReadYourWrites(applied: AppliedVersion(5), shared: false)
        let views = "/v1/lists/people/views?minVersion=9"
        XCTAssertEqual(rules.awaited(by: Request(method: .get, uri: "/v1/lists/people?minVersion=9")), 9)
        XCTAssertEqual(rules.awaited(by: Request(method: .post, uri: views)), 9)
        XCTAssertNil(rules.awaited(by: Request(method: .options, uri: views)))
        XCTAssertNil(rules.awaited(by: Request(method: .get, uri: "/v1/lists/people?minVersion=5")), "applied already")
        XCTAssertNil(rules.awaited(by: Request(method: .put, uri: "/v1/collections/people/records/p1?minVersion=9")))
    }

    func testAReadAheadOfTheServerWaitsThenAnswers503() throws {
        let app = try TestApp()
        let now = try XCTUnwrap(Int(app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#).header("Sectional-Version") ?? ""))
        let refused = try app.get("/v1/lists/people?minVersion=\(now + 100)")
        XCTAssertEqual(refused.slug, "not-caught-up")
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.header("Retry-After"), "1")
        XCTAssertEqual(try app.get("/v1/lists/people?minVersion=soon").slug, "invalid-version")
        XCTAssertEqual(try app.get("/v1/lists/people?minVersion=-1").slug, "invalid-version")
        // Named both ways, the larger holds (the parameter alone decided before) and either may be refused.
        let ahead = [("Sectional-Min-Version", String(now + 100))]
        XCTAssertEqual(try app.request("GET", "/v1/lists/people?minVersion=\(now)", headers: ahead).slug, "not-caught-up")
        XCTAssertEqual(try app.request("GET", "/v1/lists/people?minVersion=\(now + 100)", headers: [("Sectional-Min-Version", String(now))]).slug,
                       "not-caught-up")
        XCTAssertEqual(try app.request("GET", "/v1/lists/people?minVersion=\(now)", headers: [("Sectional-Min-Version", String(now))]).status, 200)
        XCTAssertEqual(try app.request("GET", "/v1/lists/people?minVersion=\(now)", headers: [("Sectional-Min-Version", "soon")]).slug,
                       "invalid-version")
        XCTAssertEqual(try app.metric("sectional_reads_waiting_for_version"), 0, "the refused read waits no more")
    }

    func testACollectionsRecordsAskedForAheadOfTheServerWaitThenAnswer503() throws {
        let app = try TestApp()
        let now = try XCTUnwrap(Int(app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#).header("Sectional-Version") ?? ""))
        XCTAssertEqual(try app.get("/v1/collections/people/records?minVersion=\(now)").status, 200)
        let refused = try app.request("GET", "/v1/collections/people/records", headers: [("Sectional-Min-Version", "\(now + 100)")])
        XCTAssertEqual(refused.slug, "not-caught-up", "not the records as they are, as if the version were in them")
        XCTAssertEqual(refused.header("Retry-After"), "1")
        XCTAssertEqual(try app.get("/v1/collections/people/records?minVersion=abc").slug, "invalid-version")
        // Two lines are one list, as `5, 6` on one line is: refused, in either order, not the first taken.
        for lines in [["1", "\(now + 100)"], ["\(now + 100)", "1"]] {
            let twice = try app.request("GET", "/v1/lists/people", headers: lines.map { ("Sectional-Min-Version", $0) })
            XCTAssertEqual(twice.slug, "invalid-version", "\(lines)")
            XCTAssertEqual(try twice.problem["detail"] as? String, "minVersion must be a whole number from 0, not '\(lines.joined(separator: ", "))'.")
        }
    }

    /// A view write reads the list (the section an index names): it waits for the version it
    /// asks for as a read does, rather than being refused at once.
    func testAViewWriteAskingForAVersionAheadWaitsForItAndIsReleasedByIt() throws {
        let app = try TestApp()
        let now = try XCTUnwrap(Int(app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#).header("Sectional-Version") ?? ""))
        let answer = Locked<Int?>(nil)
        let port = app.port
        let done = DispatchSemaphore(value: 0)
        Thread {
            let status = (try? HTTPTestClient(port: port).request("POST", "/v1/lists/people/views?minVersion=\(now + 1)").status) ?? -1
            answer.withLock { $0 = status }
            done.signal()
        }.start()
        XCTAssertTrue(eventually { (try? app.metric("sectional_reads_waiting_for_version")) == 1 || answer.withLock({ $0 }) != nil })
        XCTAssertNil(answer.withLock { $0 }, "parked, not answered at once")
        try app.put("people", "p2", #"{"name":"Bo","team":"Ops"}"#).expect(201)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(answer.withLock { $0 }, 201, "released by the write it waited for")
    }

    /// More reads waiting for a version than the server has threads (4): none holds a thread, so
    /// a write is still taken, and it releases them all.
    func testWaitingReadsHoldNoThreadAndTheWriteOfTheirVersionReleasesThem() throws {
        let app = try TestApp()
        let now = try XCTUnwrap(Int(app.put("people", "p1", #"{"name":"Ada","team":"Design"}"#).header("Sectional-Version") ?? ""))
        let waiting = 6
        let answers = Locked<[Int]>([])
        let group = DispatchGroup()
        let port = app.port
        for i in 0..<waiting {
            // A thread each (not a global queue, which may start six blocking tasks slowly).
            group.enter()
            Thread {
                let target = i % 2 == 0 ? "/v1/lists/people/rows?minVersion=\(now + 1)" : "/v1/lists/people/rows"
                let headers = i % 2 == 0 ? [] : [("Sectional-Min-Version", "\(now + 1)")]
                let status = (try? HTTPTestClient(port: port).request("GET", target, headers: headers).status) ?? -1
                answers.withLock { $0.append(status) }
                group.leave()
            }.start()
        }
        XCTAssertTrue(eventually { (try? app.metric("sectional_reads_waiting_for_version")) == Double(waiting) },
                      "every read parked (each a second at most, so the scrape came in time)")
        XCTAssertEqual(try app.get("/healthz").status, 200, "a thread is free while they wait")
        XCTAssertEqual(try app.put("people", "p2", #"{"name":"Bo","team":"Ops"}"#).header("Sectional-Version"), "\(now + 1)")
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(answers.withLock { $0 }, Array(repeating: 200, count: waiting), "released by the write, not refused after the second")
        let rows = try app.get("/v1/lists/people/rows?minVersion=\(now + 1)").expect(200)
        XCTAssertTrue(rows.text.contains("\"Bo\""), "the read sees the write it waited for")
    }

    func testAWaitingReadIsReleasedWhenItsVersionIsAppliedOrAfterItsTimeout() {
        let applied = AppliedVersion(3)
        // (callback, the version applied when it ran), in the order they ran.
        let ran = Locked<[(String, Int64)]>([])
        func runs(_ name: String) -> [Int64] { ran.withLock { $0.filter { $0.0 == name }.map(\.1) } }
        applied.whenApplied(3, timeout: 60) { ran.withLock { $0.append(("applied", applied.current)) } }
        XCTAssertTrue(eventually { runs("applied") == [3] }, "an applied version needs no wait")
        applied.whenApplied(4, timeout: 0.01) { ran.withLock { $0.append(("late", applied.current)) } }
        XCTAssertTrue(eventually { runs("late") == [3] }, "run after the timeout, the version not applied")
        applied.whenApplied(5, timeout: 60) { ran.withLock { $0.append(("released", applied.current)) } }
        XCTAssertEqual(applied.waiting, 1)
        applied.advance(to: 4)
        XCTAssertEqual(applied.waiting, 1, "version 4 does not release a wait for 5")
        applied.advance(to: 5)
        XCTAssertEqual(applied.waiting, 0)
        XCTAssertTrue(eventually { runs("released") == [5] })
        applied.advance(to: 6)
        XCTAssertEqual(ran.withLock { $0.count }, 3, "each callback ran once")
    }
}
