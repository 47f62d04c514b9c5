import Foundation
import HTTPServer
#if canImport(Glibc)
import Glibc
#endif

/// Structured logs: one JSON object per line on stderr, filtered by level.
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

        var name: String { ["debug", "info", "warn", "error"][rawValue] }

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    public let level: Level

    public init(level: Level = .info) { self.level = level }

    /// A field value: text or a number, written as JSON.
    public enum Value: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case text(String)
        case number(Double)
        public init(stringLiteral value: String) { self = .text(value) }
        public init(integerLiteral value: Int) { self = .number(Double(value)) }
        var json: String {
            switch self {
            case .text(let text): return JSONText.quote(text)
            case .number(let number):
                return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
            }
        }
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { write(.debug, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { write(.info, message, fields) }
    public func warn(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { write(.warn, message, fields) }
    public func error(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { write(.error, message, fields) }

    public func write(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, Value>) {
        guard level >= self.level else { return }
        var line = "{\"time\":\(JSONText.quote(Self.timestamp())),\"level\":\"\(level.name)\",\"msg\":\(JSONText.quote(message))"
        for (key, value) in fields { line += ",\(JSONText.quote(key)):\(value.json)" }
        line += "}\n"
        line.withUTF8 { bytes in _ = Glibc.write(2, bytes.baseAddress, bytes.count) }
    }

    /// An RFC 3339 UTC timestamp with milliseconds.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, Int(now.tv_nsec / 1_000_000))
    }
}
