import XCTest
@testable import ListModel

final class TemplateTests: XCTestCase {
    let record = parse(#"""
    {"id":"p1","name":"Ada Lovelace","email":"ada@x.io","salary":1234.5,"big":-1234567.891,"n":56,"f":0.125,
     "ok":true,"nil":null,"obj":{"city":"London","zip":{"code":"N1"}},"arr":[1],"start":"2024-03-05T14:07:09Z",
     "epoch":1709647629,"empty":"","yen":1234.5,"text":"n/a","numstr":"2.5","d":"2024-03-05"}
    """#).objectValue!

    func r(_ t: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do { return try Template(parsing: t, scope: .row).render(record: record) } catch {
            XCTFail("\(error)", file: file, line: line)
            return ""
        }
    }

    func testPathsAndValueKinds() {
        XCTAssertEqual(r("{name} <{email}>"), "Ada Lovelace <ada@x.io>")
        XCTAssertEqual(r("{obj.city}/{obj.zip.code}"), "London/N1")
        XCTAssertEqual(r("{n}|{salary}|{ok}"), "56|1234.5|true")
        XCTAssertEqual(r("[{nil}{obj}{arr}{missing}{obj.nope}{name.x}]"), "[]")
        XCTAssertEqual(r("{{literal}} {{{name}}}"), "{literal} {Ada Lovelace}")
        XCTAssertEqual(r("app://people/{id}"), "app://people/p1")
    }

    func testCaseAndDefault() {
        XCTAssertEqual(r("{name|upper}"), "ADA LOVELACE")
        XCTAssertEqual(r("{name|lower}"), "ada lovelace")
        XCTAssertEqual(r("{missing|default:—}"), "—")
        XCTAssertEqual(r("{empty|default:none}"), "none")
        XCTAssertEqual(r("{name|default:none}"), "Ada Lovelace")
        XCTAssertEqual(r("{missing|default:x|upper}"), "X")
    }

    func testNumber() {
        XCTAssertEqual(r("{salary|number}"), "1,234.5")
        XCTAssertEqual(r("{big|number}"), "-1,234,567.891")
        XCTAssertEqual(r("{big|number:1}"), "-1,234,567.9")
        XCTAssertEqual(r("{n|number:2}"), "56.00")
        XCTAssertEqual(r("{f|number:2}"), "0.12")        // half-even
        XCTAssertEqual(r("{salary|number:0}"), "1,234")  // 1234.5 → 1234 (half-even)
        XCTAssertEqual(r("{numstr|number:2}"), "2.50")   // numeric text is formatted
        XCTAssertEqual(r("{text|number}"), "n/a")        // other text passes through
        XCTAssertEqual(r("{missing|number|default:-}"), "-")
        XCTAssertEqual(DecimalText(.double(2.675))!.formatted(minFraction: 2, maxFraction: 2), "2.68")
        XCTAssertEqual(DecimalText(.double(999.995))!.formatted(minFraction: 2, maxFraction: 2), "1,000.00")
        XCTAssertEqual(DecimalText(.double(-0.001))!.formatted(minFraction: 2, maxFraction: 2), "0.00")
        XCTAssertEqual(DecimalText(.double(1e-7))!.formatted(minFraction: 0, maxFraction: 8), "0.0000001")
        XCTAssertEqual(DecimalText(.double(1e20))!.formatted(minFraction: 0, maxFraction: 0), "100,000,000,000,000,000,000")
    }

    func testCurrency() {
        XCTAssertEqual(r("{salary|currency:USD}"), "$1,234.50")
        XCTAssertEqual(r("{salary|currency:EUR}"), "€1,234.50")
        XCTAssertEqual(r("{salary|currency:GBP}"), "£1,234.50")
        XCTAssertEqual(r("{yen|currency:JPY}"), "¥1,234")
        XCTAssertEqual(r("{salary|currency:CHF}"), "CHF 1,234.50")
        XCTAssertEqual(r("{big|currency:USD}"), "-$1,234,567.89")
        XCTAssertEqual(r("{n|currency:USD}"), "$56.00")
        // ISO 4217's minor units: none for the Rwandan franc (it had two), four for the Chilean
        // unit of account; a three-decimal amount past 2^42 as written (its last digit was one up).
        func amount(_ json: String, _ code: String) -> String {
            (try? Template(parsing: "{a|currency:\(code)}", scope: .row).render(record: parse(json).objectValue!)) ?? "error"
        }
        XCTAssertEqual(amount(#"{"a":1234}"#, "RWF"), "RWF 1,234")
        XCTAssertEqual(amount(#"{"a":1234.5}"#, "XPF"), "XPF 1,234")
        XCTAssertEqual(amount(#"{"a":1.5}"#, "CLF"), "CLF 1.5000")
        XCTAssertEqual(amount(#"{"a":9106079951530.531}"#, "KWD"), "KWD 9,106,079,951,530.531")
    }

    /// A number's text (`{field}`, group keys, `as: "string"` sorts) follows one rule whether or
    /// not its value is exactly a `Double`: plain digits for 0.0001 ≤ |x| < 10^21, exponent form
    /// outside (`0.000001` was `1e-6` but its neighbour plain; `1e20` was `1e+20`).
    func testNumberTextIsOneFormWhateverTheKind() throws {
        let cases: [(String, String)] = [
            ("1E+14", "100000000000000"), ("1e20", "100000000000000000000"),
            ("100000000000000000001", "100000000000000000001"), ("10000000000000000000", "10000000000000000000"),
            ("18446744073709551616", "18446744073709551616"), ("-1e20", "-100000000000000000000"),
            ("123456789012345678901234567890", "1.2345678901234567890123456789e+29"), ("1e21", "1e+21"),
            ("0.000001", "1e-6"), ("0.0000010000000000000000001", "1.0000000000000000001e-6"),
            ("0.0001", "0.0001"), ("0.00010000000000000000001", "0.00010000000000000000001"),
            ("0.00009999", "9.999e-5"), ("0.000099990000000000000001", "9.9990000000000000001e-5"),
            ("12.50", "12.5"), ("1234.5", "1234.5"), ("56", "56"), ("9007199254740993", "9007199254740993"),
            // Zero has no sign, whatever its text: `-0` was "-0" (and a group of its own) while `-0.0` was "0".
            ("-0", "0"), ("-0.0", "0"), ("-0e0", "0"), ("-0.00", "0"), ("0e5", "0"), ("-0E-5", "0"),
        ]
        for (json, text) in cases {
            let value = parse(#"{"n":\#(json)}"#).objectValue!
            XCTAssertEqual(try Template(parsing: "{n}", scope: .row).render(record: value), text, json)
            XCTAssertEqual(SortType.string.sortValue(value["n"]), .string(text), json)
        }
        // Below 10^16 a double's text is the JSON writer's, and the exact rule gives the same.
        var rng = SplitMix64(seed: 55)
        for k in 0..<20_000 {
            let d = k % 2 == 0 ? Double(bitPattern: rng.next())
                : Double(Int64.random(in: -999_999_999...999_999_999, using: &rng)) / pow(10, Double(Int.random(in: 0...20, using: &rng)))
            guard d.isFinite, d != 0, abs(d) < 1e16 else { continue }
            var written: [UInt8] = []
            JSONNumberText.appendDouble(d, to: &written)
            XCTAssertEqual(String(decoding: written, as: UTF8.self), DecimalText(.double(d))!.shownText, "\(d)")
            XCTAssertEqual(JSONNumberText.text(.double(d)), DecimalText(.double(d))!.shownText, "\(d)")
        }
    }

    /// Epoch seconds with a fraction: the milliseconds a `date` sort reads (1700000000.123 is
    /// 123 ms, not the 122.99… ms its double's fraction holds), before 1970 too.
    func testDateMillisecondsOfFractionalEpochSeconds() throws {
        func render(_ seconds: String) throws -> String {
            try Template(parsing: "{t|date:yyyy-MM-dd HH:mm:ss.SSS}", scope: .row).render(record: parse(#"{"t":\#(seconds)}"#).objectValue!)
        }
        XCTAssertEqual(try render("1700000000.123"), "2023-11-14 22:13:20.123")
        XCTAssertEqual(try render("-0.5"), "1969-12-31 23:59:59.500")
        XCTAssertEqual(try render("-1"), "1969-12-31 23:59:59.000")
        // Where seconds × 1000 falls just below the whole millisecond written (326.9999… ms).
        XCTAssertEqual(try render("1094294622.327"), "2004-09-04 10:43:42.327")
        XCTAssertEqual(try render("1.001"), "1970-01-01 00:00:01.001")
        XCTAssertEqual(try render("-1.001"), "1969-12-31 23:59:58.999")
        // And a `date` sort reads the same milliseconds.
        XCTAssertEqual(SortType.date.sortValue(.double(1094294622.327)), .int(1_094_294_622_327))
    }

    func testDate() throws {
        XCTAssertEqual(r("{start|date:yyyy-MM-dd HH:mm:ss}"), "2024-03-05 14:07:09")
        XCTAssertEqual(r("{start|date:EEE, d MMM yy h:mm a}"), "Tue, 5 Mar 24 2:07 PM")
        XCTAssertEqual(r("{start|date:EEEE, MMMM d, y}"), "Tuesday, March 5, 2024")
        XCTAssertEqual(r("{epoch|date:yyyy-MM-dd'T'HH:mm:ss'Z'}"), "2024-03-05T14:07:09Z")
        XCTAssertEqual(r("{d|date:M/d/yyyy hh:mm}"), "3/5/2024 12:00")
        XCTAssertEqual(r("{text|date:yyyy}"), "n/a")
        XCTAssertEqual(r("{missing|date:yyyy|default:?}"), "?")
        XCTAssertEqual(r("{start|date:''yy''}"), "'24'")
        // Offsets are applied; output is UTC.
        let t = CivilTime.parseISO8601("2024-01-01T00:30:00+01:00")!
        XCTAssertEqual(DatePattern.format(try DatePattern.parse("yyyy-MM-dd HH:mm"))(CivilTime(epochSeconds: t.seconds)), "2023-12-31 23:30")
        XCTAssertEqual(CivilTime(epochSeconds: -1).year, 1969)
        // `y` is the year of its era, as in Unicode patterns: the year before 1 AD is 1 BC (it was "BC 0").
        let era = try DatePattern.format(DatePattern.parse("G y, Y"))
        XCTAssertEqual(era(CivilTime(epochSeconds: -62_167_219_200)), "BC 1, 0")    // 0000-01-01
        XCTAssertEqual(era(CivilTime(epochSeconds: -62_198_755_200)), "BC 2, -1")   // -0001-01-01
        XCTAssertEqual(era(CivilTime(epochSeconds: -62_135_596_800)), "AD 1, 1")    // 0001-01-01
        XCTAssertEqual(CivilTime(epochSeconds: 951782400).day, 29)   // 2000-02-29
        XCTAssertNil(CivilTime.parseISO8601("2023-02-29"))
        XCTAssertNil(CivilTime.parseISO8601("2023-01-01T25:00"))
    }

    func testSectionVariables() throws {
        let t = try Template(parsing: "{$key} ({$count}) {$key|upper}", scope: .section)
        XCTAssertEqual(t.renderString(key: "Design", count: 12), "Design (12) DESIGN")
    }

    func testParseErrors() {
        func err(_ t: String, _ scope: Template.Scope = .row) -> String? {
            do { _ = try Template(parsing: t, scope: scope); return nil } catch { return error.message }
        }
        XCTAssertEqual(err("{name"), "unclosed '{' at character 0")
        XCTAssertEqual(err("a}b"), "unmatched '}' at character 1 (write '}}' for a literal brace)")
        XCTAssertEqual(err("{}"), "empty field path in '{}'")
        XCTAssertEqual(err("{a..b}"), "empty field path in '{a..b}'")
        XCTAssertEqual(err("{name|bold}"), "unknown formatter 'bold'")
        XCTAssertEqual(err("{name|}"), "empty formatter in '{name|}'")
        XCTAssertEqual(err("{n|number:x}"), "formatter 'number:N' needs N in 0…20, got 'x'")
        XCTAssertEqual(err("{n|currency:usd}"), "formatter 'currency:CODE' needs a three-letter upper-case ISO 4217 code")
        XCTAssertEqual(err("{n|date:yyyy-QQ}"), "unsupported date pattern letter 'Q'")
        XCTAssertEqual(err("{n|date:}"), "formatter 'date:PATTERN' needs a pattern")
        XCTAssertEqual(err("{n|upper:x}"), "formatter 'upper' takes no argument")
        XCTAssertEqual(err("{$key}"), "'{$key}' is only available in section templates")
        XCTAssertEqual(err("{name}", .section), "section templates cannot read record fields ('{name}'); use {$key} or {$count}")
        XCTAssertEqual(err("{$nope}", .section), "unknown variable '$nope' (use $key or $count)")
        XCTAssertEqual(err("{a{b}"), "'{' inside a placeholder at character 0")
    }
}

private extension DatePattern {
    static func format(_ p: DatePattern) -> (CivilTime) -> String { { p.format($0) } }
}
