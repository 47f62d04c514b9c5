import Dispatch
import Foundation
import HTTPServer
import Locking
import TestSupport
import XCTest

/// A stop whose grace period runs out while an answer is still being completed on another
/// thread (a write waiting on the writer) closes that connection instead of aborting the process:
/// libmicrohttpd aborts when stopped with a suspended connection. Found by `make tsan`, where a
/// slow batch outlived the test server's one-second grace period.
final class StopWithPendingAnswerTests: XCTestCase {
    func testAStopPastItsGracePeriodClosesAConnectionWaitingForAnAnswer() throws {
        let pending = Locked<DeferredResponse?>(nil)
        var router = Router()
        router.post("/slow") { _ in
            let deferred = DeferredResponse()
            pending.withLock { $0 = deferred }
            return .later(deferred)
        }
        let frozen = router
        let server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 1)) { frozen.respond(to: &$0) }
        try server.start()
        let client = try HTTPTestClient(port: server.port, timeoutSeconds: 5)
        try client.send("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        XCTAssertTrue(eventually { pending.withLock { $0 != nil } && server.requestsInFlight == 1 }, "the answer is pending")

        server.stop(gracePeriod: 0.2)   // before the fix: "MHD_stop_daemon() called while we have suspended connections", abort

        XCTAssertEqual(try client.readUntilClosed(), "", "the connection is closed without an answer")
        pending.withLock { $0 }?.complete(.json(#"{"late":true}"#))   // completing after the stop touches nothing
    }
}
