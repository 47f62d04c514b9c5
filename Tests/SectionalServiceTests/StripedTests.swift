import Dispatch
import Foundation
import Locking
import TestSupport
import XCTest
@testable import SectionalService

/// State kept in stripes, one per thread: nothing any thread adds is lost or counted twice, and
/// the log sink writes every thread's lines, each thread's in its order.
final class StripedTests: XCTestCase {
    func testEveryThreadsUpdatesAreSeenOnce() {
        let counts = Striped(count: 3) { 0 }
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { counts.withLock { $0 += 1 } }
        }
        var total = 0
        counts.forEach { total += $0 }
        XCTAssertEqual(total, 8_000)
    }

    func testThreadsGetTheirOwnNumbers() {
        let numbers = Locked<[Int]>([])
        let done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            Thread {
                let number = ThreadNumber.current
                XCTAssertEqual(ThreadNumber.current, number, "a thread keeps its number")
                numbers.withLock { $0.append(number) }
                done.leave()
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        let seen = numbers.withLock { $0 }
        XCTAssertEqual(seen.count, 4)
        XCTAssertEqual(Set(seen).count, 4, "four threads, four numbers: \(seen)")
    }

    func testLogSinkWritesEveryThreadsLinesInTheirOrder() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        defer { close(readEnd) }
        let sink = LogSink(fd: writeEnd)
        // The pipe is drained while the sink writes (its buffer is smaller than the lines).
        let reader = DispatchQueue(label: "reader")
        let output = Locked<[UInt8]>([])
        let drained = DispatchSemaphore(value: 0)
        reader.async {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                output.withLock { $0.append(contentsOf: buffer[0..<n]) }
            }
            drained.signal()
        }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for line in 0..<2_000 { sink.append(Array("t\(thread) \(line)\n".utf8)) }
        }
        sink.flush()
        close(writeEnd)
        XCTAssertEqual(drained.wait(timeout: .now() + 10), .success)
        let lines = String(decoding: output.withLock { $0 }, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 8_000)
        var next = [Int](repeating: 0, count: 4)
        for line in lines {
            let parts = line.split(separator: " ")
            let thread = try XCTUnwrap(Int(parts[0].dropFirst()))
            XCTAssertEqual(Int(parts[1]), next[thread], "thread \(thread)'s lines in order")
            next[thread] += 1
        }
        XCTAssertEqual(next, [2_000, 2_000, 2_000, 2_000])
    }
}
