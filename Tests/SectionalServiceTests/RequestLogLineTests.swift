import Foundation
import ListModel
@testable import SectionalService
import XCTest

/// The request log line is written with an unchecked cursor into memory sized beforehand: these
/// check that what it writes is one JSON object per line, escaped as ``JSONWriter`` escapes, and
/// within the size the caller reserves.
final class RequestLogLineTests: XCTestCase {
    private func line(method: String = "GET", path: String, route: String = "/r", status: Int = 200, bytes: Int = 15,
                      seconds: Double = 0.000_058) -> (text: [UInt8], reserved: Int) {
        var (method, path, route) = (method, path, route)
        return method.withUTF8 { method in
            path.withUTF8 { path in
                route.withUTF8 { route in
                    let reserved = 256 + JSONCursor.escapedCapacity(method.count + path.count + route.count)
                    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: reserved) { memory in
                        var cursor = JSONCursor(memory.baseAddress!)
                        Log.writeRequestLine(to: &cursor, method: method, path: path, route: route, status: status,
                                             bytes: bytes, durationSeconds: seconds)
                        return (Array(cursor.written), reserved)
                    }
                }
            }
        }
    }

    private func object(_ text: [UInt8]) throws -> [String: Any] {
        XCTAssertEqual(text.last, UInt8(ascii: "\n"))
        XCTAssertEqual(text.filter { $0 == UInt8(ascii: "\n") }.count, 1, "one line")
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text)) as? [String: Any])
    }

    func testTheFieldsOfAnAnsweredRequest() throws {
        let fields = try object(line(method: "PUT", path: "/v1/lists/contacts/rows", route: "/v1/lists/{list}/rows", status: 201,
                                     bytes: 1_510, seconds: 0.012_345_6).text)
        XCTAssertEqual(fields["level"] as? String, "info")
        XCTAssertEqual(fields["msg"] as? String, "request")
        XCTAssertEqual(fields["method"] as? String, "PUT")
        XCTAssertEqual(fields["path"] as? String, "/v1/lists/contacts/rows")
        XCTAssertEqual(fields["route"] as? String, "/v1/lists/{list}/rows")
        XCTAssertEqual(fields["status"] as? Int, 201)
        XCTAssertEqual(fields["bytes"] as? Int, 1_510)
        XCTAssertEqual((fields["duration_ms"] as? NSNumber)?.doubleValue, 12.346)
        let time = try XCTUnwrap(fields["time"] as? String)
        XCTAssertNotNil(time.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression), time)
    }

    func testTheTimeIsNowInUTC() throws {
        let fields = try object(line(path: "/").text)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let time = try XCTUnwrap(formatter.date(from: try XCTUnwrap(fields["time"] as? String)))
        XCTAssertLessThan(abs(time.timeIntervalSinceNow), 5, "\(time) against \(Date())")
    }

    /// The date is kept from one line to the next while the day lasts: lines of two days in turn
    /// (and a leap day, the epoch) each carry their own, as `gmtime_r` gives it.
    func testEachLineCarriesTheDateOfItsOwnDay() throws {
        let moments = [1_798_761_599, 1_798_761_600, 1_798_761_599, 1_709_164_800 + 43_210, 0, 1_798_761_600, 86_399]
        for seconds in moments {
            let text = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { memory in
                var cursor = JSONCursor(memory.baseAddress!)
                Log.writeTimestamp(to: &cursor, seconds: seconds, nanoseconds: 987_654_321)
                return String(decoding: cursor.written, as: UTF8.self)
            }
            var time = time_t(seconds), parts = tm()
            gmtime_r(&time, &parts)
            let expected = String(format: "\"%04d-%02d-%02dT%02d:%02d:%02d.987Z\"", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                                  Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
            XCTAssertEqual(text, expected, "\(seconds)")
        }
    }

    func testDurationsKeepThreeDecimalsAndNeverGoNegative() throws {
        let text = { (seconds: Double) in String(decoding: self.line(path: "/", seconds: seconds).text, as: UTF8.self) }
        XCTAssertTrue(text(0).contains(#""duration_ms":0.000}"#), text(0))
        XCTAssertTrue(text(0.000_058).contains(#""duration_ms":0.058}"#), text(0.000_058))
        XCTAssertTrue(text(2.5).contains(#""duration_ms":2500.000}"#), text(2.5))
        XCTAssertTrue(text(-1).contains(#""duration_ms":0.000}"#), text(-1))
        XCTAssertTrue(text(.nan).contains(#""duration_ms":0.000}"#), text(.nan))
    }

    func testPathsAreEscapedAsTheJSONWriterEscapes() throws {
        let path = "/v1/lists/\"quoted\"\\back\u{1}\n\tcafé/日本"
        let (text, reserved) = line(path: path)
        XCTAssertLessThanOrEqual(text.count, reserved)
        XCTAssertEqual(try object(text)["path"] as? String, path)
        var expected: [UInt8] = []
        JSONWriter.appendEscaped(path, to: &expected)
        XCTAssertTrue(String(decoding: text, as: UTF8.self).contains(#""path":"# + String(decoding: expected, as: UTF8.self) + ","))
    }

    func testTheWorstCaseFitsInTheReservedSize() throws {
        // Every byte escaped to six, and the widest numbers.
        let path = String(repeating: "\u{1}", count: 3_000)
        let (text, reserved) = line(method: String(repeating: "\u{2}", count: 20), path: path, route: "\u{3}",
                                    status: Int.max, bytes: Int.min, seconds: 1e300)
        XCTAssertLessThanOrEqual(text.count, reserved)
        let fields = try object(text)
        XCTAssertEqual(fields["path"] as? String, path)
        XCTAssertEqual((fields["bytes"] as? NSNumber)?.int64Value, Int64.min)
    }
}
