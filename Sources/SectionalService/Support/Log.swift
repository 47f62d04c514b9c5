import HTTPServer
import ListModel
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Structured logs: one JSON object per line on stderr, filtered by level. Lines are built as
/// bytes (no Foundation formatting) and handed to a ``LogSink`` that writes them in batches off
/// the caller's thread; ``flush()`` before the process exits.
public final class Log: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warn, error

        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warn", "warning": self = .warn
            case "error": self = .error
            default: return nil
            }
        }

        var name: String {
            switch self {  // literals: an array of the four names was built for every line
            case .debug: "debug"
            case .info: "info"
            case .warn: "warn"
            case .error: "error"
            }
        }

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    public let level: Level
    private let sink: LogSink

    public init(level: Level = .info) {
        self.level = level
        sink = .standardError
    }

    /// A field value: text or a number, written as JSON.
    public enum Value: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case text(String)
        case number(Double)
        case bool(Bool)
        public init(stringLiteral value: String) { self = .text(value) }
        public init(integerLiteral value: Int) { self = .number(Double(value)) }

        func write(into w: inout JSONWriter) {
            switch self {
            case .text(let text): w.string(text)
            case .number(let number):
                if number == number.rounded() && abs(number) < 1e15 { w.int64(Int64(number)) } else { w.double(number) }
            case .bool(let value): w.bool(value)
            }
        }
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { write(.debug, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { write(.info, message, fields) }
    public func warn(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { write(.warn, message, fields) }
    public func error(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { write(.error, message, fields) }

    public func write(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, Value>) {
        guard level >= self.level else { return }
        var w = start(level, message, capacity: 128 + 48 * fields.count)
        for (key, value) in fields {
            w.key(key)
            value.write(into: &w)
        }
        finish(&w)
    }

    /// The line of one answered request, at info: put together with a ``JSONCursor`` in memory
    /// on the stack (on the heap only for a path of hundreds of bytes) and copied once into the
    /// sink's buffer; no formatting allocation. A method libmicrohttpd did not tell (nil) is
    /// written `unknown`; unknown `bytes` (nil) are left out.
    public func request(method: HTTPMethod?, path: @autoclosure () -> Substring, route: String, status: HTTPStatus, bytes: Int?,
                        durationSeconds: Double) {
        guard .info >= level else { return }
        var path = path()  // found only when the line is written
        var method = method?.rawValue ?? "unknown"
        var route = route
        path.withUTF8 { path in
            method.withUTF8 { method in
                route.withUTF8 { route in
                    let capacity = 256 + JSONCursor.escapedCapacity(path.count + method.count + route.count)
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { memory in
                        var line = JSONCursor(memory.baseAddress!)
                        Self.writeRequestLine(to: &line, method: method, path: path, route: route, status: status.code,
                                              bytes: bytes, durationSeconds: durationSeconds)
                        sink.append(line.written)
                    }
                }
            }
        }
    }

    /// Writes a request line with its newline: at most 256 bytes besides its three escaped strings.
    static func writeRequestLine(to line: inout JSONCursor, method: UnsafeBufferPointer<UInt8>, path: UnsafeBufferPointer<UInt8>,
                                 route: UnsafeBufferPointer<UInt8>, status: Int, bytes: Int?, durationSeconds: Double) {
        line.put(#"{"time":"#)
        writeTimestamp(to: &line)
        line.put(#","level":"info","msg":"request","method":"#)
        line.putEscaped(method)
        line.put(#","path":"#)
        line.putEscaped(path)
        line.put(#","route":"#)
        line.putEscaped(route)
        line.put(#","status":"#)
        line.putInt(status)
        if let bytes {
            line.put(#","bytes":"#)
            line.putInt(bytes)
        }
        // Milliseconds with three decimals.
        let micros = durationSeconds.isFinite ? max(0, Int((min(durationSeconds, 1e9) * 1e6).rounded())) : 0
        line.put(#","duration_ms":"#)
        line.putInt(micros / 1000)
        line.put(UInt8(ascii: "."))
        line.putDigits(micros % 1000, width: 3)
        line.put("}\n")
    }

    /// Writes every line logged so far (before the process exits), waiting at most `seconds` for
    /// stderr's reader (by default ``LogSink/flushSeconds``); returns whether everything was written.
    @discardableResult
    public func flush(within seconds: Double? = nil) -> Bool { sink.flush(within: seconds ?? LogSink.flushSeconds) }

    private func start(_ level: Level, _ message: String, capacity: Int) -> JSONWriter {
        var w = JSONWriter(capacity: capacity)
        w.beginObject()
        Self.writeTime(into: &w)
        w.key("level"); w.string(level.name)
        w.key("msg"); w.string(message)
        return w
    }

    private func finish(_ w: inout JSONWriter) {
        w.endObject()
        w.bytes.append(0x0A)  // in place: a copy of the bytes first would copy the whole line
        sink.append(w.bytes)
    }

    /// Writes the `time` member, the time now (``writeTimestamp(to:)``), as every line's first.
    static func writeTime(into w: inout JSONWriter) {
        w.key("time")
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 26) { memory in
            var time = JSONCursor(memory.baseAddress!)
            writeTimestamp(to: &time)
            w.rawValueBegin()
            w.raw(time.written)
        }
    }

    /// Writes the time now as an RFC 3339 UTC timestamp with milliseconds, quoted:
    /// `"2026-11-30T12:00:00.000Z"` (26 bytes). The calendar date is computed (``CivilTime``), not
    /// asked of glibc's `gmtime_r`, which takes a lock every thread of the process shares.
    static func writeTimestamp(to out: inout JSONCursor) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        writeTimestamp(to: &out, seconds: Int(now.tv_sec), nanoseconds: Int(now.tv_nsec))
    }

    /// Writes the time `seconds` (since the epoch, UTC) and `nanoseconds` as ``writeTimestamp(to:)``
    /// does; times before 1970 are written as 1970-01-01T00:00:00.
    static func writeTimestamp(to out: inout JSONCursor, seconds: Int, nanoseconds: Int) {
        let seconds = max(0, seconds)
        let days = seconds / 86400, rem = seconds % 86400
        let date = calendarDate(days: days)
        out.put(UInt8(ascii: "\""))
        out.putDigits(date / 10000, width: 4); out.put(UInt8(ascii: "-"))
        out.putDigits(date / 100 % 100, width: 2); out.put(UInt8(ascii: "-"))
        out.putDigits(date % 100, width: 2); out.put(UInt8(ascii: "T"))
        out.putDigits(rem / 3600, width: 2); out.put(UInt8(ascii: ":"))
        out.putDigits(rem / 60 % 60, width: 2); out.put(UInt8(ascii: ":"))
        out.putDigits(rem % 60, width: 2); out.put(UInt8(ascii: "."))
        out.putDigits(nanoseconds / 1_000_000 % 1000, width: 3)
        out.put(UInt8(ascii: "Z")); out.put(UInt8(ascii: "\""))
    }

    /// The date of the day the last line was written in: `days + 1` (days since 1970-01-01) in
    /// the high 32 bits, `yyyymmdd` in the low 32; 0 before the first line. One word, so a thread
    /// reads a whole date or none (relaxed: any thread's date for the same day is the same).
    private static let today = Atomic<UInt64>(0)

    /// `yyyymmdd` of the UTC day `days` after 1970-01-01: ``CivilTime``'s arithmetic once a day,
    /// not once a line (365 of the 2,200 instructions of a request line, callgrind).
    private static func calendarDate(days: Int) -> Int {
        let packed = today.load(ordering: .relaxed)
        if packed >> 32 == UInt64(days + 1) { return Int(packed & 0xFFFF_FFFF) }
        let time = CivilTime(epochSeconds: Int64(days) * 86400)
        let date = time.year * 10000 + time.month * 100 + time.day
        today.store(UInt64(days + 1) << 32 | UInt64(date), ordering: .relaxed)
        return date
    }
}
