import XCTest
@testable import ListModel

/// `date` in a list's `timeZone`: offsets in the input, local time in the output across the
/// daylight saving changes (a hand-made Europe/Berlin table for 2026 here; the service's real
/// tz data is tested in `SectionalServiceTests.TimeZoneListTests`).
final class TimeZoneTests: XCTestCase {
    /// Berlin in 2026: CET (+1) until 2026-03-29T01:00Z, CEST (+2) until 2026-10-25T01:00Z, then CET.
    static let berlin = TimeZoneOffsets(identifier: "Europe/Berlin", initialOffset: 3600, transitions: [
        .init(start: 1_774_746_000, offset: 7200), .init(start: 1_792_890_000, offset: 3600)])

    private func render(_ template: String, _ value: String, zone: TimeZoneOffsets = .utc) throws -> String {
        try Template(parsing: template, scope: .row, formats: .english, zone: zone)
            .render(record: XCTUnwrap(JSONParser.parse(#"{"t":\#(value)}"#).objectValue))
    }

    func testISO8601ParsesEveryOffsetAndFractionalSeconds() throws {
        let utc = try XCTUnwrap(CivilTime.parseISO8601("2026-03-29T00:30:00Z"))
        XCTAssertEqual(utc.seconds, 1_774_744_200)
        XCTAssertFalse(utc.dateOnly)
        XCTAssertEqual(CivilTime.parseISO8601("2026-03-29T01:30:00+01:00")?.seconds, utc.seconds)
        XCTAssertEqual(CivilTime.parseISO8601("2026-03-28T19:30:00-05:00")?.seconds, utc.seconds)
        XCTAssertEqual(CivilTime.parseISO8601("2026-03-29T06:00:00+0530")?.seconds, utc.seconds)
        XCTAssertEqual(CivilTime.parseISO8601("2026-03-29T02:30:00+02")?.seconds, utc.seconds)
        XCTAssertEqual(CivilTime.parseISO8601("2026-03-29t00:30z")?.seconds, utc.seconds)
        let fraction = try XCTUnwrap(CivilTime.parseISO8601("2026-03-29T01:30:00.123456789+01:00"))
        XCTAssertEqual(fraction.seconds, utc.seconds)
        XCTAssertEqual(fraction.millisecond, 123)
        XCTAssertEqual(CivilTime.parseISO8601("2026-03-29T00:30:00,5Z")?.millisecond, 500)
        XCTAssertEqual(CivilTime.parseISO8601("2026-03-29")?.dateOnly, true)
        for bad in ["2026-03-29T00:30:00+1", "2026-03-29T00:30:00+01:", "2026-03-29T00:30:00+24:00", "2026-03-29T00:30:00.Z",
                    "2026-03-29T00:30:00 Z"] {
            XCTAssertNil(CivilTime.parseISO8601(bad), bad)
        }
        XCTAssertEqual(try render("{t|date:HH:mm:ss.SSS}", #""2026-03-28T19:30:00.25-05:00""#), "00:30:00.250")
    }

    func testLocalTimeAcrossTheSpringChange() throws {
        let p = "{t|date:yyyy-MM-dd HH:mm ZZZZZ}"
        XCTAssertEqual(try render(p, #""2026-03-29T00:30:00Z""#, zone: Self.berlin), "2026-03-29 01:30 +01:00")
        XCTAssertEqual(try render(p, #""2026-03-29T00:59:59Z""#, zone: Self.berlin), "2026-03-29 01:59 +01:00")
        XCTAssertEqual(try render(p, #""2026-03-29T01:00:00Z""#, zone: Self.berlin), "2026-03-29 03:00 +02:00")
        XCTAssertEqual(try render(p, #""2026-03-29T01:30:00Z""#, zone: Self.berlin), "2026-03-29 03:30 +02:00")
        XCTAssertEqual(try render(p, #""2026-03-29T03:30:00+02:00""#, zone: Self.berlin), "2026-03-29 03:30 +02:00")
        XCTAssertEqual(try render(p, "1774747800", zone: Self.berlin), "2026-03-29 03:30 +02:00", "epoch seconds too")
        // Two formatters in a chain take the general path: the same answer.
        XCTAssertEqual(try render("{t|date:HH:mm|upper}", #""2026-03-29T01:30:00Z""#, zone: Self.berlin), "03:30")
    }

    func testLocalTimeAcrossTheAutumnChange() throws {
        let p = "{t|date:d MMM HH:mm xxx Z X}"
        // 02:00–03:00 local happens twice: first in summer time, then in standard time.
        XCTAssertEqual(try render(p, #""2026-10-25T00:30:00Z""#, zone: Self.berlin), "25 Oct 02:30 +02:00 +0200 +02")
        XCTAssertEqual(try render(p, #""2026-10-25T01:30:00Z""#, zone: Self.berlin), "25 Oct 02:30 +01:00 +0100 +01")
        XCTAssertEqual(try render(p, #""2026-12-31T23:30:00Z""#, zone: Self.berlin), "1 Jan 00:30 +01:00 +0100 +01",
                       "the local day and year roll over")
        XCTAssertEqual(try render("{t|date:ZZZZ}", #""2026-07-01T12:00:00Z""#, zone: Self.berlin), "GMT+02:00")
        let newYork = TimeZoneOffsets(identifier: "America/St_Johns", initialOffset: -12600)
        XCTAssertEqual(try render("{t|date:HH:mm XXX X}", #""2026-01-10T12:00:00Z""#, zone: newYork), "08:30 -03:30 -0330")
    }

    func testUTCStaysTheDefaultAndADayIsWrittenAsItIs() throws {
        XCTAssertEqual(try render("{t|date:yyyy-MM-dd HH:mm Z X ZZZZ}", #""2026-03-29T01:30:00+01:00""#), "2026-03-29 00:30 +0000 Z GMT")
        XCTAssertEqual(try render("{t|date:yyyy-MM-dd HH:mm}", #""2026-03-29T01:30:00Z""#, zone: .utc), "2026-03-29 01:30")
        let samoa = TimeZoneOffsets(identifier: "Pacific/Pago_Pago", initialOffset: -39600)
        XCTAssertEqual(try render("{t|date:EEE d MMM}", #""2026-03-29""#, zone: samoa), "Sun 29 Mar",
                       "a date without a time is a calendar day in every zone")
        XCTAssertEqual(try render("{t|date:EEE d MMM}", #""2026-03-29T00:00:00Z""#, zone: samoa), "Sat 28 Mar")
    }

    func testTheTableLooksUpEveryInterval() {
        let z = Self.berlin
        XCTAssertEqual(z.offset(at: Int64.min), 3600)
        XCTAssertEqual(z.offset(at: 1_774_745_999), 3600)
        XCTAssertEqual(z.offset(at: 1_774_746_000), 7200)
        XCTAssertEqual(z.offset(at: 1_792_889_999), 7200)
        XCTAssertEqual(z.offset(at: 1_792_890_000), 3600)
        XCTAssertEqual(z.offset(at: Int64.max), 3600)
        XCTAssertEqual(TimeZoneOffsets.utc.offset(at: 0), 0)
    }

    func testAListNamesItsZoneAndAnUnknownNameIsAnError() throws {
        let json = try JSONParser.parse(#"""
            {"timeZone": "Europe/Berlin", "sections": [{"source": "e", "key": "k", "row": {"title": "{t|date:HH:mm}"}}]}
            """#)
        let def = try ListDefinitions.decode(name: "events", json, zones: { $0 == "Europe/Berlin" ? Self.berlin : nil })
        XCTAssertEqual(def.timeZone, Self.berlin)
        let title = try XCTUnwrap(def.sections[0].binding?.row.title)
        XCTAssertEqual(title.render(record: try XCTUnwrap(JSONParser.parse(#"{"t":"2026-03-29T01:30:00Z"}"#).objectValue)), "03:30")
        XCTAssertEqual(def.localized("en", formats: .english).timeZone, Self.berlin, "a language keeps the zone")
        XCTAssertEqual(try ListDefinitions.decode(name: "events", try JSONParser.parse(#"{"sections":[]}"#)).timeZone, .utc)
        // Each further language is checked with the same zones (it was checked with UTC's alone).
        let twoLanguages = try JSONParser.parse(#"""
            {"languages": ["en", "de"], "timeZone": "Europe/Berlin",
             "sections": [{"source": "e", "key": "k", "row": {"title": {"en": "{t|date:HH:mm}", "de": "{t|date:HH:mm} Uhr"}}}]}
            """#)
        let both = try ListDefinitions.decode(name: "events", twoLanguages, zones: { $0 == "Europe/Berlin" ? Self.berlin : nil })
        XCTAssertEqual(both.languages, ["en", "de"])
        XCTAssertEqual(both.timeZone, Self.berlin)

        XCTAssertThrowsError(try ListDefinitions.decode(name: "events", json)) { error in
            XCTAssertEqual((error as? DefinitionErrors)?.errors,
                           [DefinitionError(path: "lists.events.timeZone",
                                            message: "unknown time zone \"Europe/Berlin\" (use an IANA name such as \"Europe/Berlin\")")])
        }
        XCTAssertThrowsError(try ListDefinitions.decode(name: "events", try JSONParser.parse(#"{"timeZone": 1, "sections":[]}"#))) { error in
            XCTAssertEqual((error as? DefinitionErrors)?.errors.map(\.path), ["lists.events.timeZone"])
        }
    }
}
