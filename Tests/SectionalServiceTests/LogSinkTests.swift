import Foundation
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
}
