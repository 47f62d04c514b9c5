import HTTPServer
import ListModel
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
        public init(stringLiteral value: String) { self = .text(value) }
        public init(integerLiteral value: Int) { self = .number(Double(value)) }

        func write(into w: inout JSONWriter) {
            switch self {
            case .text(let text): w.string(text)
            case .number(let number):
                if number == number.rounded() && abs(number) < 1e15 { w.int64(Int64(number)) } else { w.double(number) }
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

    /// The line of one answered request, at info: built without a field list or any formatting
    /// allocation beyond the line itself.
    public func request(method: HTTPMethod, path: @autoclosure () -> Substring, route: String, status: HTTPStatus, bytes: Int,
                        durationSeconds: Double) {
        guard .info >= level else { return }
        var path = path()  // found only when the line is written
        var w = start(.info, "request", capacity: 192 + path.utf8.count)
        w.key("method"); w.string(method.rawValue)
        w.key("path")
        path.withUTF8 { w.string(utf8: $0) }
        w.key("route"); w.string(route)
        w.key("status"); w.int(status.code)
        w.key("bytes"); w.int(bytes)
        w.key("duration_ms")
        let micros = max(0, Int((durationSeconds * 1e6).rounded()))
        var digits: [UInt8] = []
        digits.reserveCapacity(24)
        JSONNumberText.appendInt(Int64(micros / 1000), to: &digits)
        digits.append(UInt8(ascii: "."))
        let fraction = micros % 1000
        digits.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        digits.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        digits.append(UInt8(ascii: "0") + UInt8(fraction % 10))
        w.rawValue(digits)
        finish(&w)
    }

    /// Writes every line logged so far (before the process exits).
    public func flush() { sink.flush() }

    private func start(_ level: Level, _ message: String, capacity: Int) -> JSONWriter {
        var w = JSONWriter(capacity: capacity)
        w.beginObject()
        w.key("time")
        w.rawValue(Self.timestamp())
        w.key("level"); w.string(level.name)
        w.key("msg"); w.string(message)
        return w
    }

    private func finish(_ w: inout JSONWriter) {
        w.endObject()
        w.bytes.append(0x0A)  // in place: a copy of the bytes first would copy the whole line
        sink.append(w.bytes)
    }

    /// An RFC 3339 UTC timestamp with milliseconds, quoted: `"2026-11-30T12:00:00.000Z"`.
    static func timestamp() -> [UInt8] {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        var out: [UInt8] = []
        out.reserveCapacity(26)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        out.append(UInt8(ascii: "\""))
        digits(Int(parts.tm_year) + 1900, 4); out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2); out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2); out.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2); out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2); out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2); out.append(UInt8(ascii: "."))
        digits(Int(now.tv_nsec / 1_000_000), 3)
        out.append(UInt8(ascii: "Z")); out.append(UInt8(ascii: "\""))
        return out
    }
}
