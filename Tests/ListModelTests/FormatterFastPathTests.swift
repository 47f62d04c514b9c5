import XCTest
import JSONOutput
@testable import ListModel

/// The byte-writing fast paths of `currency` and `date` (used when rows are built) must give
/// exactly the text of the general string path.
final class FormatterFastPathTests: XCTestCase {
    private func general(_ f: TemplateFormatter, _ v: JSONValue) -> String {
        var text = ByteBuffer()
        appendPlainText(v, to: &text)
        return f.apply(value: v, text: text.string)
    }

    private func direct(_ f: TemplateFormatter, _ v: JSONValue) -> String? {
        var out = ByteBuffer()
        guard f.appendDirect(value: v, to: &out) else { return nil }
        return out.string
    }

    func testCurrencyMatchesGeneralPath() throws {
        let seed: UInt64 = 20_240_305
        var rng = SplitMix64(seed: seed)
        var values: [JSONValue] = [.int(0), .int(-0), .int(1), .int(-1), .int(999), .int(1000), .int(-1_234_567),
                                   .int(Int64.max), .int(Int64.min), .double(0), .double(-0.0), .double(0.5), .double(-0.005),
                                   .double(2.675), .double(1234.5), .double(0.1 + 0.2), .double(1e12 + 0.25), .double(9.99e12),
                                   .double(1e13), .double(-1e20), .double(123_456.789), .double(0.125), .double(1e-7)]
        for _ in 0..<3000 {
            values.append(.int(Int64.random(in: -10_000_000_000...10_000_000_000, using: &rng)))
            values.append(.double(Double(Int.random(in: -2_000_000_000...2_000_000_000, using: &rng)) / 100))
            values.append(.double(Double(Int.random(in: -2_000_000...2_000_000, using: &rng)) / 1000))
            values.append(.double(Double.random(in: -1e9...1e9, using: &rng)))
        }
        var fast = 0
        for code in ["USD", "JPY", "KWD", "CHF", "EUR"] {
            let f = try TemplateFormatter.parse(Substring("currency:\(code)"))
            for v in values {
                guard let d = direct(f, v) else { continue }
                fast += 1
                XCTAssertEqual(d, general(f, v), "seed \(seed): \(code) \(v)")
            }
        }
        XCTAssertGreaterThan(fast, values.count * 2, "seed \(seed)")   // the fast path is actually taken (most values)
    }

    func testDateMatchesGeneralPath() throws {
        let patterns = ["MMM d, yyyy", "yyyy-MM-dd HH:mm:ss.SSS", "EEE, d MMM yy h:mm a", "EEEE, MMMM d, y G",
                        "D k K Z ZZZZ ZZZZZ X x xx xxx 'at' ''", "L LL LLLLL E EEEEE S SSSS"]
        let values: [JSONValue] = [.string("2024-03-05T14:07:09Z"), .string("2024-03-05"), .string("1999-12-31T23:59:59.987+02:00"),
                                   .string("not a date"), .int(1_709_647_629), .int(-86_401), .double(1_709_647_629.25),
                                   .double(1e14), .string("0001-01-01T00:00:00Z")]
        var fast = 0
        for p in patterns {
            let f = try TemplateFormatter.parse(Substring("date:\(p)"))
            for v in values {
                guard let d = direct(f, v) else { continue }
                fast += 1
                XCTAssertEqual(d, general(f, v), "\(p) \(v)")
            }
        }
        XCTAssertGreaterThan(fast, 0, "the date fast path never ran")
    }
}
