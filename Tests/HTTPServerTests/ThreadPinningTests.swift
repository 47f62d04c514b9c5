import Foundation
import Locking
@testable import HTTPServer
import TestSupport
import XCTest

/// Worker threads kept on a core each: when it applies, and what the kernel then reports for the
/// thread that answers.
final class ThreadPinningTests: XCTestCase {
    func testPinningAppliesWithAThreadPerCoreOrMoreOnTwoCoresOrMore() {
        XCTAssertNotNil(ThreadPinning(threads: 2, cores: [0, 1]))
        XCTAssertNotNil(ThreadPinning(threads: 8, cores: [2, 5]))
        XCTAssertNil(ThreadPinning(threads: 2, cores: [0, 1, 2, 3]), "fewer threads than cores stay free")
        XCTAssertNil(ThreadPinning(threads: 4, cores: [3]), "one core: nothing to choose")
        XCTAssertNil(ThreadPinning(threads: 1, cores: [0, 1]))
        XCTAssertNil(ThreadPinning(threads: 2, cores: nil), "an unreadable mask")
    }

    /// With two cores or more each worker answers from a core of its own; with one, the workers
    /// stay free, as there is nothing to choose (the contract on whatever machine runs the test).
    func testEachWorkerAnswersFromACoreOfItsOwn() throws {
        let cores = try XCTUnwrap(System.allowedCPUs())
        let answers = try workerAffinities(ServerConfiguration(host: "127.0.0.1", port: 0, threads: max(2, cores.count)))
        XCTAssertGreaterThanOrEqual(Set(answers.keys).count, 2, "connections reached one worker only: \(answers)")
        guard cores.count >= 2 else {
            for (worker, allowed) in answers { XCTAssertEqual(allowed, cores, "worker \(worker) on one core") }
            return
        }
        for (worker, allowed) in answers {
            XCTAssertEqual(allowed.count, 1, "worker \(worker) may run on \(allowed)")
            XCTAssertTrue(cores.contains(allowed[0]), "worker \(worker) on \(allowed), outside \(cores)")
        }
        let used = answers.values.map { $0[0] }
        XCTAssertEqual(Set(used).count, used.count, "two workers on one core: \(answers)")
    }

    func testWorkersStayFreeWhenPinningIsOff() throws {
        let cores = try XCTUnwrap(System.allowedCPUs())
        let answers = try workerAffinities(ServerConfiguration(host: "127.0.0.1", port: 0, threads: max(2, cores.count), pinThreads: false))
        XCTAssertFalse(answers.isEmpty)
        for (worker, allowed) in answers { XCTAssertEqual(allowed, cores, "worker \(worker)") }
    }

    /// A thread made by a pinned thread starts on its one core, as the kernel copies the mask;
    /// ``ThreadPinning/freeCallingThread()`` gives it the process's cores again, and leaves a
    /// pinned worker where it is. (On a one-core machine pinned and free are the same mask, so
    /// the test pins to that core twice over and proves less.)
    func testBackgroundWorkFreesAThreadAPinnedOneMadeButNotTheWorker() throws {
        let cores = try XCTUnwrap(System.allowedCPUs())
        let pinning = try XCTUnwrap(ThreadPinning(threads: 2, cores: [cores[0], cores[cores.count - 1]]))
        let seen = Locked<[String: [Int]]>([:])
        let childDone = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let worker = Thread {
            pinning.pinCallingThreadOnce()
            seen.withLock { $0["worker pinned"] = Self.callingThreadCPUs() }
            let child = Thread {
                seen.withLock { $0["child at start"] = Self.callingThreadCPUs() }
                ThreadPinning.freeCallingThread()
                seen.withLock { $0["child freed"] = Self.callingThreadCPUs() }
                childDone.signal()
            }
            child.start()
            childDone.wait()
            ThreadPinning.freeCallingThread()
            seen.withLock { $0["worker after free"] = Self.callingThreadCPUs() }
            done.signal()
        }
        worker.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        let masks = seen.withLock { $0 }
        XCTAssertEqual(masks["worker pinned"], [cores[0]])
        XCTAssertEqual(masks["child at start"], [cores[0]], "the kernel copies the maker's mask")
        XCTAssertEqual(masks["child freed"], cores)
        XCTAssertEqual(masks["worker after free"], [cores[0]], "a pinned worker stays on its core")
    }

    private static func callingThreadCPUs() -> [Int]? {
        (try? String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)).flatMap { System.allowedCPUs(status: $0) }
    }

    /// The CPUs each answering worker may run on, by the worker's thread id, from requests on
    /// many connections held open at once (libmicrohttpd spreads connections over its workers):
    /// four a worker, opened before any is asked, and as many again (up to 48 in all) until
    /// every worker has answered. Which worker takes a connection is whichever wakes first, and
    /// on a busy machine one took the first eight.
    private func workerAffinities(_ configuration: ServerConfiguration) throws -> [Int: [Int]] {
        var router = Router()
        router.get("/affinity") { _ in
            let allowed = Self.callingThreadCPUs()?.map(String.init).joined(separator: ",") ?? ""
            return .json("{\"thread\":\(pthread_self()),\"cpus\":[\(allowed)]}")
        }
        let frozen = router
        let server = Server(configuration: configuration) { frozen.respond(to: &$0) }
        try server.start()
        defer { server.stop(gracePeriod: 1) }
        var clients: [HTTPTestClient] = []
        var answers: [Int: [Int]] = [:]
        repeat {
            let batch = try (0..<(4 * configuration.workerThreads)).map { _ in try HTTPTestClient(port: server.port) }
            clients += batch
            for client in batch {
                let answer = try client.request("GET", "/affinity")
                XCTAssertEqual(answer.status, 200)
                let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any], answer.text)
                let worker = try XCTUnwrap(object["thread"] as? Int, answer.text)
                answers[worker] = try XCTUnwrap(object["cpus"] as? [Int], answer.text)
            }
        } while answers.count < configuration.workerThreads && clients.count + 4 * configuration.workerThreads <= 48
        return answers
    }
}
