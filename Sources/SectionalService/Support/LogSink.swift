import CGlibc
import Dispatch
import ListModel
import Locking
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where log lines go: appended to a buffer of the calling thread's (a ``Striped`` stripe,
/// under a lock no other request thread takes) and written to stderr in batches by a queue of
/// its own, so a request never waits for stderr (a slow terminal or a full pipe stalls only the
/// writer). At most ``maxBufferedBytes`` wait, shared by the stripes (a thread past its stripe's
/// share drops its lines though others have room); past it lines are dropped and counted, and the
/// count is written as a line of its own once there is room.
///
/// The writer runs ``batchDelay`` after the first line of a batch, not at once: waking a thread
/// per line (one `queue.async`, a futex wake and two context switches per request) cost about a
/// tenth of the server's time on the first page with request logs at info (`perf` under
/// `make bench`'s "first page" scenario); one wake per batch costs nothing measurable.
///
/// **Writeback.** When the lines go to a regular file (standard error redirected to disk), the
/// writer asks the kernel to start writing out each ``writebackBytes`` it adds (`sync_file_range`,
/// which starts the write and does not wait for it), as PostgreSQL's `*_flush_after` settings do
/// for its files. Left to the kernel, a log's dirty pages pile up for half a minute
/// (`dirty_expire_centisecs`), near 300 MB at `make bench`'s mixed load, and go out in one burst,
/// which a commit's `fdatasync` on the same disk waits behind. Measured: the mix (90% reads, 10%
/// durable writes, `wrk -t1 -c32` sharing the two cores, logs at info to a file), four servers in
/// turn, nine 5 s runs each: without this, 3 runs of 18 had a p99 of 33–102 ms (writes held up to
/// 128 ms inside the server, and `vmstat` saw 366 MB written in one second), the kernel's dirty
/// memory up to 298 MB; with it, every p99 was 3.7–5.1 ms and dirty memory at most 71 MB. With the
/// log to `/dev/null` no run stalled either. The cost: submitting the writeback now runs on the
/// writer's thread, so on the server's cores (the kernel's flusher ran where it was woken). With the
/// server on one core serving its first page, logs at info to a file, 20 alternating 5 s runs each
/// way: 96,746 against 99,068 req/s on average (2.3% fewer), p99 a median 0.56 against 0.49 ms. That
/// is the price of writes that no longer stall behind the log.
///
/// Order: a thread's lines are written in the order it logged them; lines of different threads
/// logged within one batch (10 ms) are written stripe by stripe, so they may come out of the
/// order of their `time` fields.
final class LogSink: Sendable {
    /// Every log of the process shares standard error.
    static let standardError = LogSink(fd: 2)

    static let maxBufferedBytes = 4 << 20

    /// Bytes written to a regular file between two requests to start their writeback: 1 MiB, as
    /// PostgreSQL's `wal_writer_flush_after` (at 100,000 lines a second, about 25 requests a second).
    static let writebackBytes: Int64 = 1 << 20

    /// How long the first line of a batch waits for others: short next to a person reading logs,
    /// long next to a request (at 100k requests/s, about 1,000 lines a batch).
    static let batchDelay = DispatchTimeInterval.milliseconds(10)

    /// How long ``flush(within:)`` waits for the writer by default: the process exits after it, so
    /// a stalled reader of stderr (a log shipper that stopped reading, a full pipe) cannot hold
    /// the exit up for ever.
    static let flushSeconds = 5.0

    private struct Pending {
        var bytes: [UInt8] = []
        var dropped = 0
    }

    private let fd: Int32
    private let pending: Striped<Pending>
    /// Bytes one stripe may hold: ``maxBufferedBytes`` shared between the stripes.
    private let stripeLimit: Int
    /// Whether a batch is scheduled: set by the line that starts one, cleared by the writer
    /// before it takes the lines (a line added after that starts the next batch).
    private let scheduled = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "sectional.log", qos: .utility)
    /// Whether `fd` is a regular file (whose writeback the writer starts; see the type's doc).
    private let isRegularFile: Bool
    /// Where the file's bytes not yet handed to writeback start, and how often the kernel took
    /// such a request. Used by the writer alone (on ``queue``); locked so the type stays `Sendable`.
    private let writeback: Locked<(from: Int64, starts: Int)>
    /// The writer's own state (used on ``queue`` alone; locked so the type stays `Sendable`):
    /// lines it could not write and has not told of yet, and whether the last write stopped
    /// inside a line (ended before anything else is written, so it never runs into the next).
    private let failed = Locked<(lost: Int, midLine: Bool)>((0, false))

    init(fd: Int32) {
        self.fd = fd
        pending = Striped { Pending() }
        stripeLimit = Self.maxBufferedBytes / pending.count
        var status = stat()
        isRegularFile = fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        writeback = Locked((from: isRegularFile ? max(0, Int64(lseek(fd, 0, SEEK_CUR))) : 0, starts: 0))
    }

    /// Times the kernel took the writer's request to start writing out what it wrote.
    var writebackStarts: Int { writeback.withLock { $0.starts } }

    /// Queues one line (with its newline) for writing; returns at once.
    func append(_ line: [UInt8]) {
        line.withUnsafeBufferPointer { append($0) }
    }

    /// Queues one line (with its newline) for writing, copying its bytes; returns at once.
    func append(_ line: UnsafeBufferPointer<UInt8>) {
        let kept = pending.withLock { pending -> Bool in
            guard pending.bytes.count + line.count <= stripeLimit else {
                pending.dropped += 1
                return false
            }
            pending.bytes.append(contentsOf: line)
            return true
        }
        // A plain load first: while a batch is scheduled the flag's cache line is only read.
        guard kept, !scheduled.load(ordering: .relaxed),
              scheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        queue.asyncAfter(deadline: .now() + Self.batchDelay) { [self] in writeOut() }
    }

    /// Writes everything queued so far before returning (at shutdown, before exiting), waiting
    /// at most `seconds` for the writer: one blocked in `write(2)` by a reader that does not read
    /// is left behind, and the lines it has not written are lost as dropped ones are (the process
    /// exits). Returns whether everything was written.
    @discardableResult
    func flush(within seconds: Double = LogSink.flushSeconds) -> Bool {
        let written = DispatchSemaphore(value: 0)
        queue.async { [self] in
            writeOut()
            written.signal()
        }
        return written.wait(timeout: .now() + seconds) == .success
    }

    private func writeOut() {
        scheduled.store(false, ordering: .releasing)
        var batches: [[UInt8]] = []
        var dropped = 0
        pending.forEach { pending in
            // Hand each buffer over and start a new one (no capacity ratchet); written after
            // every lock is released.
            if !pending.bytes.isEmpty { batches.append(pending.bytes) }
            dropped += pending.dropped
            pending = Pending()
        }
        var lost = failed.withLock { state in defer { state.lost = 0 }; return state.lost }
        for bytes in batches { lost += write(bytes) }
        dropped += lost
        if dropped > 0 {
            var line = JSONWriter(capacity: 96)
            line.beginObject()
            Log.writeTime(into: &line)
            line.key("level"); line.string("warn")
            line.key("msg"); line.string("log lines dropped")
            line.key("count"); line.int(dropped)
            line.endObject()
            line.bytes.append(UInt8(ascii: "\n"))
            if write(line.bytes) > 0 { failed.withLock { $0.lost += dropped } }  // told of next time
        }
        startWriteback()
    }

    /// Once a regular file has taken ``writebackBytes`` since the last time, asks the kernel to
    /// start writing them out. From the file's offset, which also follows a file opened to append
    /// or cut short by `copytruncate`.
    private func startWriteback() {
        guard isRegularFile else { return }
        let end = Int64(lseek(fd, 0, SEEK_CUR))
        guard end >= 0 else { return }
        writeback.withLock { state in
            if end < state.from { state.from = 0 }  // cut short: its bytes start again at 0
            guard end - state.from >= Self.writebackBytes else { return }
            if sectional_start_writeback(fd, off_t(state.from), off_t(end - state.from)) == 0 { state.starts += 1 }
            state.from = end
        }
    }

    /// Writes `bytes` (whole lines); returns how many of its lines were lost. A short write goes
    /// on from where it stopped, and a descriptor the other end made non-blocking (a full pipe
    /// answers `EAGAIN`) is waited for with `poll`, as a blocking one would be. Any other failure
    /// (a full disk, a reader gone) loses the rest, counted by its newlines; a line cut short is
    /// ended before the next bytes go out. (A failure returned at once dropped the rest of the
    /// batch uncounted, and the next batch went on inside the cut line: `{"time":"…","level"{"time":…`.)
    private func write(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { buffer -> Int in
            let newline = UInt8(ascii: "\n")
            let lines = { (from: Int) in buffer[from...].reduce(0) { $0 + ($1 == newline ? 1 : 0) } }
            if failed.withLock({ $0.midLine }) {
                var end = newline
                guard writeFully(&end, count: 1) == 1 else { return lines(0) }
                failed.withLock { $0.midLine = false }
            }
            let written = writeFully(buffer.baseAddress!, count: buffer.count)
            guard written < buffer.count else { return 0 }
            if written > 0, buffer[written - 1] != newline { failed.withLock { $0.midLine = true } }
            return lines(written)
        }
    }

    /// Writes as much of `count` bytes at `start` as the descriptor takes (see ``write(_:)``);
    /// returns how many it took.
    private func writeFully(_ start: UnsafePointer<UInt8>, count: Int) -> Int {
        var offset = 0
        while offset < count {
            let written = Glibc.write(fd, start + offset, count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                var wanted = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&wanted, 1, -1) < 0 && errno != EINTR { return offset }
            } else {
                return offset
            }
        }
        return offset
    }
}
