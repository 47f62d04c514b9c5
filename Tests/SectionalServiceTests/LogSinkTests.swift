import Foundation
import Locking
@testable import SectionalService
import XCTest

/// The log writer's requests to start writing a log file out (see ``LogSink``'s "Writeback"):
/// one for each ``LogSink/writebackBytes`` written to a regular file, none for a pipe.
final class LogSinkTests: XCTestCase {
    /// Writes `rounds` rounds of 1,100 lines of 1,000 bytes (a tenth more than
    /// `LogSink.writebackBytes`) through `sink`, written out (`flush`) every 100 lines, as the
    /// writer's batches would be (a thread's lines past its share of the buffer are dropped);
    /// returns the bytes written.
    private func write(_ sink: LogSink, rounds: Int) -> Int {
        let line = Array(repeating: UInt8(ascii: "x"), count: 999) + [UInt8(ascii: "\n")]
        XCTAssertGreaterThan(1_100 * line.count, Int(LogSink.writebackBytes))
        for _ in 0..<rounds * 11 {
            for _ in 0..<100 { sink.append(line) }
            sink.flush()
        }
        return rounds * 1_100 * line.count
    }

    func testAFileHasItsWritebackStartedForEachMebibyteWritten() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("logsink-\(UUID().uuidString).log").path
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd); unlink(path) }
        let sink = LogSink(fd: fd)
        let written = write(sink, rounds: 3)
        XCTAssertEqual(sink.writebackStarts, 3, "one start a round: each round is more than writebackBytes")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, written, "every line written")

        // Cut short, as logrotate's `copytruncate` does: the count starts again at the file's start.
        XCTAssertEqual(ftruncate(fd, 0), 0)
        _ = write(sink, rounds: 2)
        XCTAssertEqual(sink.writebackStarts, 5)
    }

    func testAPipeHasNoWriteback() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // Drained as the sink writes (the pipe holds less than a round), until the write end closes.
        let drained = DispatchSemaphore(value: 0)
        Thread {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while read(readEnd, &buffer, buffer.count) > 0 {}
            drained.signal()
        }.start()
        let sink = LogSink(fd: writeEnd)
        _ = write(sink, rounds: 2)
        XCTAssertEqual(sink.writebackStarts, 0)
        close(writeEnd)
        XCTAssertEqual(drained.wait(timeout: .now() + 10), .success)
        close(readEnd)
    }

    /// A reader of the log that stops reading (a stalled log shipper, a full pipe) holds the
    /// writer in `write(2)`, but not a flush beyond its bound: the process exits at shutdown.
    /// Before, the flush waited behind the writer for as long as nobody read. The lines past the
    /// buffer are dropped, and the line that counts them has a `time` like every other line.
    func testAFlushReturnsWithinItsBoundWhileTheReaderStalls() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let sink = LogSink(fd: writeEnd)
        let line = Array(repeating: UInt8(ascii: "x"), count: 999) + [UInt8(ascii: "\n")]
        // More than the pipe and the sink's buffer hold together, and nothing reads yet.
        for _ in 0..<(3 * LogSink.maxBufferedBytes / line.count) { sink.append(line) }
        let flushed = Locked<Bool?>(nil)
        let returned = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let done = sink.flush(within: 0.5)
            flushed.withLock { $0 = done }
            returned.signal()
        }
        XCTAssertEqual(returned.wait(timeout: .now() + 20), .success, "the flush returns while the reader stalls")
        XCTAssertEqual(flushed.withLock { $0 }, false, "and says not everything was written")

        // The reader reads again: the writer goes on, and counts what it dropped.
        let received = Locked<[UInt8]>([])
        let drained = DispatchSemaphore(value: 0)
        Thread {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = read(readEnd, &buffer, buffer.count)
                guard count > 0 else { break }
                received.withLock { $0 += buffer[..<count] }
            }
            drained.signal()
        }.start()
        XCTAssertTrue(sink.flush(within: 30), "everything is written once the reader reads")
        close(writeEnd)
        XCTAssertEqual(drained.wait(timeout: .now() + 10), .success)
        close(readEnd)
        let text = String(decoding: received.withLock { $0 }, as: UTF8.self)
        let counted = try XCTUnwrap(text.split(separator: "\n").first { $0.contains("log lines dropped") }, "lines were dropped")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(counted.utf8)) as? [String: Any])
        let time = try XCTUnwrap(object["time"] as? String, String(counted))
        XCTAssertNotNil(time.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression), time)
        XCTAssertEqual(object["level"] as? String, "warn")
        XCTAssertGreaterThan(try XCTUnwrap(object["count"] as? Int), 0)
    }

    /// Standard error made non-blocking by whoever holds the pipe (a Node.js parent, some log
    /// supervisors), its reader behind: the writer waits for room as on a blocking pipe, so
    /// every line arrives whole and none is lost. A full pipe's `EAGAIN` dropped the rest of the
    /// batch uncounted and the next batch went on inside the cut line (2,346 of 6,000 request
    /// lines written, one of them two lines run together).
    func testANonBlockingPipeGetsEveryLineWhole() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        XCTAssertEqual(fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK), 0)
        let sink = LogSink(fd: writeEnd)
        let lines = (0..<2_000).map { #"{"n":\#($0),"pad":""# + String(repeating: "x", count: 150) + "\"}\n" }
        // More than the pipe holds (64 KiB), less than the sink's share for this thread.
        for line in lines { sink.append(Array(line.utf8)) }
        let received = Locked<[UInt8]>([])
        let drained = DispatchSemaphore(value: 0)
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(readEnd, &buffer, buffer.count)
                guard count > 0 else { break }
                received.withLock { $0 += buffer[..<count] }
                usleep(200)  // a slow reader: the pipe fills again and again
            }
            drained.signal()
        }.start()
        XCTAssertTrue(sink.flush(within: 30))
        close(writeEnd)
        XCTAssertEqual(drained.wait(timeout: .now() + 10), .success)
        close(readEnd)
        let text = String(decoding: received.withLock { $0 }, as: UTF8.self)
        XCTAssertEqual(text, lines.joined(), "every line, whole and in order, and no dropped-lines line")
    }

    /// A write that fails inside a line (here the reader is gone: `EPIPE`) loses the rest of the
    /// batch, counted: the next line tells how many, after the cut line is ended.
    func testLinesAWriteCouldNotTakeAreCountedAndACutLineIsEnded() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        signal(SIGPIPE, SIG_IGN)
        let sink = LogSink(fd: writeEnd)
        close(readEnd)
        sink.append(Array("{\"lost\":1}\n{\"lost\":2}\n".utf8))
        XCTAssertTrue(sink.flush(within: 10))
        // A reader again, on a new pipe in the same descriptor: the count comes with the next batch.
        XCTAssertEqual(pipe(&fds), 0)
        XCTAssertEqual(dup2(fds[1], writeEnd), writeEnd)
        close(fds[1])
        sink.append(Array("{\"kept\":true}\n".utf8))
        XCTAssertTrue(sink.flush(within: 10))
        close(writeEnd)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(fds[0], &buffer, buffer.count)
        close(fds[0])
        let text = String(decoding: buffer[..<max(0, count)], as: UTF8.self)
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.first, "{\"kept\":true}", text)
        let counted = try XCTUnwrap(lines.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }, text)
        XCTAssertEqual(counted["msg"] as? String, "log lines dropped")
        XCTAssertEqual(counted["count"] as? Int, 2)
    }
}
