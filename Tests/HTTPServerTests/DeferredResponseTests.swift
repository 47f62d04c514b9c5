import Dispatch
import Foundation
import HTTPServer
import Locking
import TestSupport
import XCTest

final class DeferredResponseTests: XCTestCase {
    func testAnswersCompletedLaterOrAtOnceAreSentAndThreadsStayFree() throws {
        let release = DispatchSemaphore(value: 0)
        var router = Router()
        router.get("/later") { _ in
            let deferred = DeferredResponse()
            DispatchQueue.global().async {
                release.wait()
                deferred.complete(.json(#"{"later":true}"#))
            }
            return .later(deferred)
        }
        router.get("/now") { _ in
            let deferred = DeferredResponse()
            deferred.complete(.json(#"{"now":true}"#))
            return .later(deferred.map { response in
                var response = response
                response.headers.add("X-Mapped", "yes")
                return response
            })
        }
        router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
        let frozen = router
        let server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 1)) { frozen.respond(to: &$0) }
        try server.start()
        defer { server.stop(gracePeriod: 2) }

        let waiting = try HTTPTestClient(port: server.port)
        try waiting.send("GET /later HTTP/1.1\r\nHost: x\r\n\r\n")
        // The only server thread is not held by the pending answer.
        let other = try HTTPTestClient(port: server.port)
        XCTAssertEqual(try other.request("GET", "/healthz").status, 200)
        let now = try other.request("GET", "/now")
        XCTAssertEqual(now.text, #"{"now":true}"#)
        XCTAssertEqual(now.header("X-Mapped"), "yes")
        release.signal()
        let later = try waiting.readAnswer()
        XCTAssertEqual(later.status, 200)
        XCTAssertEqual(later.text, #"{"later":true}"#)
        XCTAssertEqual(try waiting.request("GET", "/healthz").status, 200, "the connection stays usable")
    }

    /// A middleware's transform of an answer completed on another thread (the single writer's,
    /// for writes) runs on the server's thread that sends it: compressing a large write's answer
    /// held the writer, and every write behind it, for milliseconds.
    func testAMappedAnswerIsTransformedOnTheServersThreadNotTheCompletingOne() throws {
        let completer = DispatchQueue(label: "completer")
        let transformedOnCompleter = Locked<Bool?>(nil)
        let key = DispatchSpecificKey<Bool>()
        completer.setSpecific(key: key, value: true)
        var router = Router()
        router.get("/later") { _ in
            let deferred = DeferredResponse()
            let mapped = deferred.map { response in
                transformedOnCompleter.withLock { $0 = DispatchQueue.getSpecific(key: key) == true }
                return response
            }
            completer.async { deferred.complete(.json(#"{"later":true}"#)) }
            return .later(mapped)
        }
        let frozen = router
        let server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 1)) { frozen.respond(to: &$0) }
        try server.start()
        defer { server.stop(gracePeriod: 2) }

        let client = try HTTPTestClient(port: server.port)
        XCTAssertEqual(try client.request("GET", "/later").text, #"{"later":true}"#)
        XCTAssertEqual(transformedOnCompleter.withLock { $0 }, false, "transformed, on the server's thread")
    }
}
