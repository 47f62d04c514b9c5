import Foundation
import TestSupport
import XCTest

/// A list's `timeZone` with the platform's tz data: local time across Berlin's 2026 changes,
/// and an unknown name refused at PUT and at start.
final class TimeZoneListTests: XCTestCase {
    static let token = "time-zone-test-token"
    private var service: [(String, String)] { [("Authorization", "Bearer \(Self.token)")] }

    private static func definition(zone: String) -> String {
        """
        { "timeZone": "\(zone)", "sections": [ { "source": "events", "key": "all", "sortBy": [ { "field": "at", "as": "date" } ],
            "row": { "title": "{at|date:yyyy-MM-dd HH:mm XXX}" } } ] }
        """
    }

    func testBerlinLocalTimeAcrossBothChanges() throws {
        let app = try TestApp(token: Self.token)
        try app.request("PUT", "/v1/lists/events/definition", json: Self.definition(zone: "Europe/Berlin"), headers: service).expect(201)
        let events = [("a", "2026-03-29T00:30:00Z"), ("b", "2026-03-29T01:30:00Z"), ("c", "2026-10-25T00:30:00Z"),
                      ("d", "2026-10-25T01:30:00Z"), ("e", "2026-07-01T09:00:00-05:00")]
        let upserts = events.map { #"{"id":"\#($0.0)","at":"\#($0.1)"}"# }.joined(separator: ",")
        try app.request("POST", "/v1/collections/events/batch", json: #"{"upsert":[\#(upserts)]}"#, headers: service).expect(200)
        XCTAssertEqual(try app.rowTitles(list: "events"), [
            "2026-03-29 01:30 +01:00", "2026-03-29 03:30 +02:00", "2026-07-01 16:00 +02:00",
            "2026-10-25 02:30 +02:00", "2026-10-25 02:30 +01:00"])

        try app.request("PUT", "/v1/lists/events/definition", json: Self.definition(zone: "America/New_York"), headers: service).expect(200)
        XCTAssertEqual(try app.rowTitles(list: "events").first, "2026-03-28 20:30 -04:00")
    }

    /// Names the platform's zone list leaves out but its tz data holds — India's current name,
    /// links, `Etc/` zones — are zones too.
    func testEveryAreaLocationNameOfTheTzDataIsAZone() throws {
        let app = try TestApp(token: Self.token)
        try app.request("POST", "/v1/collections/events/batch", json: #"{"upsert":[{"id":"a","at":"2026-01-15T12:00:00Z"}]}"#,
                        headers: service).expect(200)
        for (zone, title) in [("Asia/Kolkata", "2026-01-15 17:30 +05:30"), ("Asia/Calcutta", "2026-01-15 17:30 +05:30"),
                              ("Asia/Saigon", "2026-01-15 19:00 +07:00"), ("US/Eastern", "2026-01-15 07:00 -05:00"),
                              ("Etc/GMT+5", "2026-01-15 07:00 -05:00")] {
            let answer = try app.request("PUT", "/v1/lists/events/definition", json: Self.definition(zone: zone), headers: service)
            XCTAssertTrue([200, 201].contains(answer.status), "\(zone): \(answer.status) \(answer.text)")
            XCTAssertEqual(try app.rowTitles(list: "events"), [title], zone)
        }
    }

    func testAnUnknownZoneIsAnInvalidDefinition() throws {
        let app = try TestApp(token: Self.token)
        for name in ["Europe/Nowhere", "CEST", "EST", "CET", ""] {
            let answer = try app.request("PUT", "/v1/lists/events/definition", json: Self.definition(zone: name), headers: service)
            XCTAssertEqual(answer.status, 400, name)
            XCTAssertEqual(answer.slug, "invalid-definition", name)
            let errors: [[String: Any]] = try answer.problem.value("errors")
            XCTAssertEqual(try errors.map { try $0.value("path", as: String.self) }, ["$.timeZone"], name)
        }
        XCTAssertEqual(try app.get("/v1/lists/people").status, 200, "the server keeps serving")

        let config = #"{"lists": {"events": \#(Self.definition(zone: "Mars/Olympus"))}}"#
        XCTAssertThrowsError(try TestApp(config: config)) { error in
            XCTAssertTrue("\(error)".contains("lists.events.timeZone: unknown time zone \"Mars/Olympus\""), "\(error)")
        }
        XCTAssertNoThrow(try TestApp(config: #"{"lists": {"events": \#(Self.definition(zone: "UTC"))}}"#))
    }
}
